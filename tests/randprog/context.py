"""The state of one function while the generator writes it.

Values are tracked with a bound on their magnitude over the whole input box (inputs
lie in [-1.2, -0.3] U [0.3, 1.2]), so every expression the generator writes stays
finite and every libm call stays inside its domain: a program never divides by zero,
takes the log of a negative number or overflows, whatever point the checker draws.
"""

from __future__ import annotations

import random
import re
from contextlib import contextmanager
from dataclasses import dataclass, field
from collections.abc import Iterator

INPUT_BOUND = 1.2
"""|input| <= INPUT_BOUND for every point the checker draws (see check_driver.c)."""
INPUT_MARGIN = 0.3
"""|input| >= INPUT_MARGIN: conditions `x[i] > 0` are never near a tie."""
MAX_BOUND = 40.0
"""Expressions whose bound exceeds this are squashed (tanh) or scaled before use."""


@dataclass
class Val:
    """A scalar local (or parameter) the generated code may read."""

    name: str
    bound: float
    """|value| <= bound for every input point."""
    ctype: str = "double"
    is_input: bool = False
    """Holds an input unchanged: 0.3 <= |value| <= 1.2, so `v > 0` is never near a tie."""
    active: bool = True
    """May depend on an input (values computed from constants only are not)."""


@dataclass
class Arr:
    """An array the generated code may index (`name[i]`, 0 <= i < length)."""

    name: str
    length: int
    bound: float
    ctype: str = "double"
    writable: bool = True


@dataclass
class Callee:
    """Something the code can call for a double: a helper, a table of function
    pointers, a recursive function. `template` has {0}, {1}, ... for the double
    arguments (each |arg| <= arg_bound) and {i} for an int index when indexed."""

    template: str
    arity: int
    bound: float
    arg_bound: float = MAX_BOUND
    indexed: bool = False


@dataclass
class Signature:
    """The interface of a random function: what the driver passes and reads back.

    Parameters, in order: `double *x` (n_x inputs), `double s0..` (n_s active scalars),
    `int n` (if has_n, 1 <= n <= n_max), `const int *ix` (if ix is not empty; the
    driver passes these values), `double *y` (n_y outputs; initial values y_init).
    """

    name: str
    n_x: int
    n_s: int
    has_n: bool
    n_max: int
    ix: tuple[int, ...]
    n_y: int
    y_init: tuple[float, ...]
    returns: bool
    x_const: bool
    """x is only read (declared const double *)."""
    is_static: bool
    precision: str
    """"double", or "float" when float arithmetic reaches an output (looser checks)."""

    @property
    def n_in(self) -> int:
        return self.n_x + self.n_s

    @property
    def n_out(self) -> int:
        return self.n_y + int(self.returns)


@dataclass
class FunctionContext:
    """Lines, helpers and live values of the function being written."""

    rng: random.Random
    prefix: str
    """Name of the function; every helper, type and table is named prefix_..."""
    features: dict[str, bool]
    lines: list[str] = field(default_factory=list)
    toplevel: list[str] = field(default_factory=list)
    """Definitions before the function: types, tables, helpers (in order)."""
    pool: list[Val] = field(default_factory=list)
    arrays: list[Arr] = field(default_factory=list)
    depth: int = 1
    counter: int = 0
    uses_float: bool = False
    needs_n: bool = False
    needs_ix: bool = False
    x_written: bool = False
    frees: list[str] = field(default_factory=list)
    """Heap arrays to free before returning."""
    ints: list[str] = field(default_factory=list)
    """Int expressions in scope (loop counters, n, struct int fields), all >= 0."""
    callees: list[Callee] = field(default_factory=list)
    n_x: int = 0
    """Length of the input array x (0 inside helpers, which cannot see x)."""
    ix_len: int = 0
    """Length of the int* argument ix (its values lie in [0, n_x))."""
    copy_helper: str | None = None
    """The function's `void *` byte-copy helper, shared by every record it copies
    (`blocks_records`): its call sites pass records of different layouts."""

    def has(self, feature: str) -> bool:
        return self.features.get(feature, False)

    def fresh(self, stem: str) -> str:
        """A new local name (unique in the function)."""
        self.counter += 1
        return f"{stem}{self.counter}"

    def global_name(self, stem: str) -> str:
        """A new file-scope name owned by this function."""
        self.counter += 1
        return f"{self.prefix}_{stem}{self.counter}"

    def emit(self, line: str) -> None:
        self.lines.append("    " * self.depth + line)

    @contextmanager
    def scope(self, header: str) -> Iterator[None]:
        """`header {` ... `}`; values declared inside are forgotten at the end."""
        self.emit(header + " {")
        self.depth += 1
        saved = list(self.pool), list(self.arrays), list(self.ints)
        try:
            yield
        finally:
            self.depth -= 1
            self.emit("}")
            self.pool, self.arrays, self.ints = saved

    def chance(self, p: float) -> bool:
        return self.rng.random() < p

    def const(self, lo: float = 0.2, hi: float = 1.5, signed: bool = True) -> str:
        """A literal with 3 significant digits, in [lo, hi] (random sign if signed)."""
        v = self.rng.uniform(lo, hi)
        if signed and self.rng.random() < 0.5:
            v = -v
        return f"{v:.3g}" if "." in f"{v:.3g}" or "e" in f"{v:.3g}" else f"{v:.3g}.0"

    def pick(self, ctype: str | None = None) -> Val:
        """A live value, biased toward recent and active ones (so data flows from the
        inputs through the blocks to the outputs)."""
        cands = [v for v in self.pool if ctype is None or v.ctype == ctype] or self.pool
        if self.chance(0.9):
            cands = [v for v in cands if v.active] or cands
        k = len(cands)
        i = k - 1 - min(int(self.rng.expovariate(0.5)), k - 1)
        return cands[i]

    def pick_array(self, writable: bool = False, min_len: int = 1) -> Arr | None:
        cands = [a for a in self.arrays
                 if a.length >= min_len and a.ctype == "double" and (a.writable or not writable)]
        return self.rng.choice(cands) if cands else None

    def declare(self, stem: str, expr: str, bound: float, ctype: str = "double") -> Val:
        """`ctype name = expr;` and the value joins the pool (scaled to O(1) if its
        bound is large, so later uses need no scaling)."""
        if bound > MAX_BOUND:
            scale = f"{2.0 / bound:.3g}" + ("f" if ctype == "float" else "")
            expr, bound = f"({expr}) * {scale}", 2.0
        v = Val(self.fresh(stem), bound, ctype, active=self.mentions_active(expr))
        self.emit(f"{ctype} {v.name} = {expr};")
        self.pool.append(v)
        if ctype == "float":
            self.uses_float = True
        return v

    def mentions_active(self, expr: str) -> bool:
        """Whether expr names an active value or a writable array."""
        names = set(re.findall(r"[A-Za-z_]\w*", expr))
        active = {v.name for v in self.pool if v.active}
        active |= {a.name for a in self.arrays if a.writable}
        return bool(names & active)

    def add_toplevel(self, text: str) -> None:
        self.toplevel.append(text.rstrip() + "\n")

    def child(self) -> FunctionContext:
        """A context for a helper's body: same rng, features and name space."""
        return FunctionContext(self.rng, self.prefix, self.features, counter=self.counter,
                               callees=list(self.callees))

    def adopt(self, child: FunctionContext, definition: str) -> None:
        """Take over a finished helper: its own definitions, then the helper itself."""
        self.counter = child.counter
        self.toplevel.extend(child.toplevel)
        self.add_toplevel(definition)
        self.uses_float |= child.uses_float
        self.needs_n |= child.needs_n
        self.needs_ix |= child.needs_ix
        self.callees.extend(c for c in child.callees if c not in self.callees)

    def mark_written(self, arr: Arr) -> None:
        """arr is stored to (x then cannot be declared const)."""
        if arr.name == "x":
            self.x_written = True

    def int_index(self) -> str:
        """An int expression >= 0 in scope (a loop counter, n, ...), or a literal."""
        if self.ints and self.chance(0.8):
            return self.rng.choice(self.ints)
        return str(self.rng.randint(0, 4))
