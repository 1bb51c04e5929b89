"""Natural loops, induction variables and trip counts.

A natural loop is found from its back edges (latch -> header where the header
dominates the latch); loops sharing a header are one loop, and loops nest by
containment. `LoopInfo` is a snapshot like the dominator tree it is built from.
It skips irreducible cycles (no single dominating header); `reject_irreducible`
raises `IrreducibleError` for them, for callers that must see every cycle as a
loop (the AD engine runs each loop backwards).

Trip counts: the reverse pass of the AD engine caches per-iteration values and
wants to allocate the cache before the loop, so it needs to know, at the
preheader, how many times the loop body runs. See `TripCount` for exactly what
is counted and which loop shapes are recognised (clang -O2's rotated loops with
the exit test in the latch, and -O0 + mem2reg loops testing in the header).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Iterator, Literal

from enzc.ir.cfg import reverse_post_order
from enzc.ir.dominators import DominatorTree
from enzc.ir.instructions import INVERSE_PREDICATE, SWAPPED_PREDICATE, BinaryOp, Br, Compare, Instruction, Phi
from enzc.ir.module import BasicBlock, Function
from enzc.ir.types import IntType
from enzc.ir.values import ConstantInt, Value

if TYPE_CHECKING:
    from enzc.ir.builder import IRBuilder


@dataclass(eq=False)
class Loop:
    """One natural loop. `blocks` (header first, then reverse post-order) include
    the blocks of nested loops."""

    header: BasicBlock
    latches: list[BasicBlock]
    """Blocks with a back edge to the header, in reverse post-order."""
    info: LoopInfo = field(repr=False)
    blocks: list[BasicBlock] = field(default_factory=list)
    block_set: set[BasicBlock] = field(default_factory=set, repr=False)
    parent: Loop | None = None
    subloops: list[Loop] = field(default_factory=list)

    # -- shape -------------------------------------------------------------------------
    @property
    def depth(self) -> int:
        """1 for an outermost loop."""
        d, p = 1, self.parent
        while p is not None:
            d, p = d + 1, p.parent
        return d

    def contains(self, x: BasicBlock | Instruction | Loop) -> bool:
        match x:
            case Loop():
                return x.header in self.block_set
            case Instruction():
                return x.parent in self.block_set
        return x in self.block_set

    def is_invariant(self, v: Value) -> bool:
        """Not computed inside the loop (constants, arguments, outside instructions)."""
        return not (isinstance(v, Instruction) and v.parent in self.block_set)

    @property
    def latch(self) -> BasicBlock | None:
        """The only latch, or None if there are several."""
        return self.latches[0] if len(self.latches) == 1 else None

    @property
    def entering_blocks(self) -> list[BasicBlock]:
        """Predecessors of the header outside the loop."""
        return [p for p in self.header.predecessors if p not in self.block_set]

    @property
    def preheader(self) -> BasicBlock | None:
        """The unique entering block, if its only successor is the header (a place
        to put code that runs once before the loop)."""
        entering = self.entering_blocks
        if len(entering) != 1:
            return None
        p = entering[0]
        return p if all(s is self.header for s in p.successors) else None

    @property
    def exiting_blocks(self) -> list[BasicBlock]:
        """Blocks of the loop with a successor outside it."""
        return [b for b in self.blocks if any(s not in self.block_set for s in b.successors)]

    @property
    def exit_blocks(self) -> list[BasicBlock]:
        """Distinct blocks outside the loop that the loop branches to."""
        out: dict[BasicBlock, None] = {}
        for b in self.blocks:
            for s in b.successors:
                if s not in self.block_set:
                    out[s] = None
        return list(out)

    @property
    def exit_edges(self) -> list[tuple[BasicBlock, BasicBlock]]:
        return [(b, s) for b in self.blocks for s in dict.fromkeys(b.successors) if s not in self.block_set]

    def enclosing(self) -> list[Loop]:
        """This loop and the loops around it, outermost first."""
        chain: list[Loop] = []
        loop: Loop | None = self
        while loop is not None:
            chain.append(loop)
            loop = loop.parent
        return chain[::-1]

    def __repr__(self) -> str:
        return f"<Loop %{self.header.name} depth {self.depth}, {len(self.blocks)} blocks>"

    # -- induction variables -----------------------------------------------------------
    def induction_variables(self) -> list[InductionVariable]:
        """Integer header phis `start, start+step, ...` with a constant step, where
        `start` comes from outside and `phi ± C` comes back from the (single) latch."""
        latch = self.latch
        if latch is None:
            return []
        entering = self.entering_blocks
        out = []
        for phi in self.header.phis:
            if not isinstance(phi.type, IntType):
                continue
            starts = {id(v): v for v, b in phi.incoming if b in entering}
            if len(starts) != 1 or any(b not in self.block_set and b not in entering for _, b in phi.incoming):
                continue
            start = next(iter(starts.values()))
            inc = phi.incoming_value_for(latch)
            off = _offset_from(inc, phi)
            if off is None or off == 0 or not isinstance(inc, Instruction) or not self.contains(inc):
                continue
            out.append(InductionVariable(phi, start, off, inc))
        return out

    def canonical_induction_variable(self) -> InductionVariable | None:
        """The induction variable the loop's exit test uses, if any; else one that
        starts at 0 with step 1; else the first found; None without any."""
        ivs = self.induction_variables()
        if not ivs:
            return None
        test = self._exit_test()
        if test is not None:
            for iv in ivs:
                if _offset_from(test[0].lhs, iv.phi) is not None or _offset_from(test[0].rhs, iv.phi) is not None:
                    return iv
        for iv in ivs:
            if isinstance(iv.start, ConstantInt) and iv.start.value == 0 and iv.step == 1:
                return iv
        return ivs[0]

    def _exit_test(self) -> tuple[Compare, bool, BasicBlock] | None:
        """(compare, loop continues when the compare is true, exiting block) for a
        loop whose only exit is a conditional branch executed once per iteration."""
        latch = self.latch
        exiting = self.exiting_blocks
        if latch is None or len(exiting) != 1:
            return None
        e = exiting[0]
        if self.info.loop_for(e) is not self or not self.info.dom.block_dominates(e, latch):
            return None
        term = e.terminator
        if not isinstance(term, Br) or not term.is_conditional or not isinstance(term.condition, Compare):
            return None
        cond = term.condition
        if cond.opcode != "icmp" or cond.type != _I1:
            return None
        t, f = term.successors
        if (t in self.block_set) == (f in self.block_set):
            return None
        return cond, t in self.block_set, e

    # -- trip count --------------------------------------------------------------------
    def trip_count(self) -> TripCount | None:
        """How often the body runs per entry, if the exit test allows computing it
        before the loop; None otherwise (several exits, data-dependent exit test,
        no induction variable, or an overflowing/infinite constant loop)."""
        test = self._exit_test()
        if test is None:
            return None
        cond, continue_if_true, exiting = test
        pred = cond.predicate if continue_if_true else INVERSE_PREDICATE[cond.predicate]
        for iv in self.induction_variables():
            for lhs, rhs, p in ((cond.lhs, cond.rhs, pred), (cond.rhs, cond.lhs, SWAPPED_PREDICATE[pred])):
                off = _offset_from(lhs, iv.phi)
                if off is None or not self.is_invariant(rhs) or (lhs is not iv.phi and not self.contains(lhs)):
                    continue
                tc = TripCount(iv, rhs, p, off, exiting is self.latch)
                if tc.supported:
                    return tc
        return None

    def constant_trip_count(self) -> int | None:
        tc = self.trip_count()
        return tc.constant if tc is not None else None


_I1 = IntType(1)


@dataclass(frozen=True, eq=False)
class InductionVariable:
    """`phi = [start, outside], [increment, latch]` with `increment = phi + step`."""

    phi: Phi
    start: Value
    step: int
    increment: Instruction


def _offset_from(v: Value, phi: Phi) -> int | None:
    """C when `v` is `phi`+C (`add phi, C`, `add C, phi`, `sub phi, C`), 0 for `phi`."""
    if v is phi:
        return 0
    if isinstance(v, BinaryOp):
        a, b = v.lhs, v.rhs
        if v.opcode == "add":
            if a is phi and isinstance(b, ConstantInt):
                return b.value
            if b is phi and isinstance(a, ConstantInt):
                return a.value
        if v.opcode == "sub" and a is phi and isinstance(b, ConstantInt):
            return -b.value
    return None


_PRED_HOLDS = {
    "eq": lambda a, b: a == b, "ne": lambda a, b: a != b,
    "slt": lambda a, b: a < b, "sle": lambda a, b: a <= b, "sgt": lambda a, b: a > b, "sge": lambda a, b: a >= b,
    "ult": lambda a, b: a < b, "ule": lambda a, b: a <= b, "ugt": lambda a, b: a > b, "uge": lambda a, b: a >= b,
}
"""Predicates on values already converted to the predicate's signedness."""


@dataclass(frozen=True, eq=False)
class TripCount:
    """The iteration count of a loop with one exit test on an induction variable.

    Iteration k (k = 0, 1, ...) evaluates `phi + offset` = start + k*step + offset
    and continues while `(that) predicate end` holds. With K the first k where it
    fails (the *backedge-taken count*):

    - `count` (the trip count) is how many times the latch runs, i.e. how many
      times a C loop body runs: K+1 when the exit test is in the latch (clang's
      rotated loops: `icmp eq i64 %iv.next, %n`), K when it is earlier (-O0 loops
      testing `icmp slt i32 %i, %n` in the header);
    - the header runs K+1 times in both shapes.

    For `for (i = 0; i < n; i++)` both shapes give `count == n` (with -O0's
    header test it is `smax(n, 0)`, since nothing guards the loop; clang -O2
    guards rotated loops so the count there is exactly n). Arithmetic is in the
    induction variable's type; a loop whose bound would overflow it is not
    recognised when constant and is assumed not to happen otherwise, as LLVM does
    for `nsw`/`nuw` induction variables.
    """

    iv: InductionVariable
    end: Value
    """Loop-invariant bound the induction variable is compared with."""
    predicate: str
    """Continue-while predicate with the induction variable on the left."""
    offset: int
    """The compared value is `phi + offset` (0: the phi, `step`: the increment)."""
    exit_in_latch: bool

    # -- constant form -----------------------------------------------------------------
    @property
    def counts_toward_end(self) -> bool:
        """The induction variable moves toward `end` (`ne`, `<` going up, `>` going down)."""
        step, p = self.iv.step, self.predicate
        if p == "ne":
            return True
        if p in ("slt", "sle", "ult", "ule"):
            return step > 0
        if p in ("sgt", "sge", "ugt", "uge"):
            return step < 0
        return False

    @property
    def supported(self) -> bool:
        """Computable: moving toward the bound, or constant (then a loop moving away
        or testing `eq` is known when its first tests fail)."""
        return self.counts_toward_end or self.backedge_taken is not None

    @property
    def backedge_taken(self) -> int | None:
        """K as a Python int when start and end are constants (None if infinite)."""
        s, e = self.iv.start, self.end
        if not (isinstance(s, ConstantInt) and isinstance(e, ConstantInt)):
            return None
        bits = s.type.bits  # type: ignore[attr-defined]
        mod = 1 << bits
        step, p = self.iv.step, self.predicate
        a = s.value + self.offset
        if p == "ne":
            d = ((e.value - a) if step > 0 else (a - e.value)) % mod
            return d // abs(step) if d % abs(step) == 0 else None
        signed = p[0] == "s"
        conv = (lambda x: (x + mod // 2) % mod - mod // 2) if signed else (lambda x: x % mod)
        a, end = conv(a), conv(e.value)
        if not self.counts_toward_end:
            # Only the first tests can be decided: continuing past them means
            # running until the induction variable wraps.
            holds = _PRED_HOLDS[p]
            if not holds(a, end):
                return 0
            return 1 if p == "eq" else None
        lo, hi = (a, end) if step > 0 else (end, a)
        inclusive = p in ("sle", "ule", "sge", "uge")
        limit = (mod // 2 - 1 if signed else mod - 1) if step > 0 else (-(mod // 2) if signed else 0)
        if inclusive and end == limit:
            return None  # `i <= MAX` never fails
        diff = hi - lo + (1 if inclusive else 0)
        return max(0, -(-diff // abs(step)))

    @property
    def constant(self) -> int | None:
        """The trip count (latch executions) as a Python int, when constant."""
        k = self.backedge_taken
        return None if k is None else k + int(self.exit_in_latch)

    @property
    def header_executions(self) -> int | None:
        k = self.backedge_taken
        return None if k is None else k + 1

    @property
    def value(self) -> Value | None:
        """An existing IR value equal to the trip count: a constant when known, or
        `end` (or `start`, counting down) when the count is exactly that value —
        e.g. clang -O2's `for (i = 0; i < n; i++)`. None when it needs arithmetic."""
        c = self.constant
        ity = self.iv.phi.type
        if c is not None:
            return ConstantInt(ity, c)  # type: ignore[arg-type]
        if self.predicate != "ne" or abs(self.iv.step) != 1:
            return None
        latch = int(self.exit_in_latch)
        # step 1: count = end - start - offset + latch; step -1: start - end + offset + latch
        if self.iv.step == 1:
            var, const, rest = self.end, self.iv.start, latch - self.offset
        else:
            var, const, rest = self.iv.start, self.end, latch + self.offset
        if isinstance(const, ConstantInt) and not isinstance(var, ConstantInt) and rest == const.value:
            return var
        return None

    def describe(self) -> str:
        """The count as a formula over IR values spelled as printed (`%n`, `%5`),
        for messages and tests: `%n`, `100`, `smax(%n, 0)`, `umax(ceil((%5 - 3) / 3), 0) + 1`."""
        if self.constant is not None:
            return str(self.constant)
        from enzc.ir.printer import Slots  # late: the printer is not needed for analysis

        slots = Slots(self.iv.phi.function)

        def text(v: Value) -> str:
            return str(v.value) if isinstance(v, ConstantInt) else slots.ref(v)

        v = self.value
        if v is not None:
            return text(v)
        step, p = self.iv.step, self.predicate
        a = _plus(text(self.iv.start), self.offset)
        lo, hi = (a, text(self.end)) if step > 0 else (text(self.end), a)
        inclusive = p in ("sle", "ule", "sge", "uge")
        diff = hi if lo == "0" else f"{hi} - {lo}"
        diff = _plus(diff, 1) if inclusive else diff
        if abs(step) != 1:
            diff = f"ceil({f'({diff})' if ' ' in diff else diff} / {abs(step)})"
        body = diff if p == "ne" else f"{'s' if p[0] == 's' else 'u'}max({diff}, 0)"
        return _plus(body, int(self.exit_in_latch))

    def materialize(self, builder: IRBuilder,
                    what: Literal["count", "backedge_taken", "header_executions"] = "count",
                    value_map: dict[Value, Value] | None = None) -> Value:
        """Emit the computation at the builder's position (e.g. the end of the
        preheader, where `start` and `end` are available) and return the value,
        in the induction variable's type. Constants fold; nothing is emitted when
        the answer is a constant or an existing value. `value_map` translates
        `start`/`end` when emitting into a clone of the analysed function."""
        vmap = value_map or {}
        start, end = vmap.get(self.iv.start, self.iv.start), vmap.get(self.end, self.end)
        extra = {"count": int(self.exit_in_latch), "backedge_taken": 0, "header_executions": 1}[what]
        if what == "count" and self.value is not None:
            return vmap.get(self.value, self.value)
        k = self.backedge_taken
        ity = self.iv.phi.type
        if k is not None:
            return ConstantInt(ity, k + extra)  # type: ignore[arg-type]
        em = _Folder(builder, ity)  # type: ignore[arg-type]
        step, p = self.iv.step, self.predicate
        a = em.add(start, self.offset)
        lo, hi = (a, end) if step > 0 else (end, a)
        diff = em.sub(hi, lo)
        if p == "ne":
            count = diff if abs(step) == 1 else em.udiv(diff, abs(step))
        else:
            inclusive = p in ("sle", "ule", "sge", "uge")
            signed = p[0] == "s"
            if inclusive:
                diff = em.add(diff, 1)
            rounded = diff if abs(step) == 1 else em.udiv(em.add(diff, abs(step) - 1), abs(step))
            cmp = ("sle" if signed else "ule") if inclusive else ("slt" if signed else "ult")
            count = builder.select(builder.icmp(cmp, lo, hi, "tc.nonempty"), rounded, ConstantInt(ity, 0), "tc.iters")  # type: ignore[arg-type]
        return em.add(count, extra)


def _plus(text: str, c: int) -> str:
    if c == 0:
        return text
    if text.lstrip("-").isdigit():
        return str(int(text) + c)
    return f"{text} + {c}" if c > 0 else f"{text} - {-c}"


class _Folder:
    """Integer arithmetic that folds constants and emits the rest with a builder."""

    def __init__(self, builder: IRBuilder, ity: IntType) -> None:
        self.b, self.ity = builder, ity

    def _c(self, x: Value | int) -> Value:
        return ConstantInt(self.ity, x) if isinstance(x, int) else x

    def add(self, x: Value, c: Value | int) -> Value:
        y = self._c(c)
        if isinstance(y, ConstantInt) and y.value == 0:
            return x
        if isinstance(x, ConstantInt) and isinstance(y, ConstantInt):
            return ConstantInt(self.ity, x.value + y.value)
        return self.b.add(x, y, "tc")

    def sub(self, x: Value, y: Value) -> Value:
        if isinstance(y, ConstantInt) and y.value == 0:
            return x
        if isinstance(x, ConstantInt) and isinstance(y, ConstantInt):
            return ConstantInt(self.ity, x.value - y.value)
        return self.b.sub(x, y, "tc")

    def udiv(self, x: Value, c: int) -> Value:
        if isinstance(x, ConstantInt):
            return ConstantInt(self.ity, (x.value % (1 << self.ity.bits)) // c)
        return self.b.udiv(x, ConstantInt(self.ity, c), "tc")


class LoopInfo:
    """All natural loops of a function and the innermost loop of each block."""

    def __init__(self, fn: Function, dom: DominatorTree | None = None) -> None:
        self.function = fn
        self.dom = dom if dom is not None else DominatorTree(fn)
        self._innermost: dict[BasicBlock, Loop] = {}
        rpo_index = {b: i for i, b in enumerate(self.dom.rpo)}
        found: list[Loop] = []
        # Children before parents in the dominator tree: inner headers come first.
        for h in reversed(self.dom.preorder()):
            latches = [p for p in h.predecessors if self.dom.is_reachable(p) and self.dom.block_dominates(h, p)]
            if latches:
                latches.sort(key=rpo_index.__getitem__)
                found.append(self._discover(h, latches))
        for loop in found:
            loop.subloops.sort(key=lambda sub: rpo_index[sub.header])
            loop.blocks.sort(key=rpo_index.__getitem__)
        self.loops: list[Loop] = sorted((lp for lp in found if lp.parent is None), key=lambda lp: rpo_index[lp.header])
        """Outermost loops in reverse post-order of their headers."""

    def _discover(self, header: BasicBlock, latches: list[BasicBlock]) -> Loop:
        loop = Loop(header, latches, self)
        self._innermost[header] = loop
        own = {header}
        stack = [b for b in latches if b is not header]
        while stack:
            b = stack.pop()
            sub = self._innermost.get(b)
            if sub is None:
                self._innermost[b] = loop
                own.add(b)
                stack.extend(p for p in b.predecessors if self.dom.is_reachable(p))
                continue
            while sub.parent is not None:
                sub = sub.parent
            if sub is loop:
                continue
            sub.parent = loop
            loop.subloops.append(sub)
            stack.extend(p for p in sub.header.predecessors if p not in sub.block_set and self.dom.is_reachable(p))
        loop.block_set = set(own)
        for sub in loop.subloops:
            loop.block_set |= sub.block_set
        loop.blocks = list(loop.block_set)
        return loop

    def ensure_preheader(self, loop: Loop) -> BasicBlock:
        """The loop's preheader, creating one (LLVM's loop-simplify) if it has none:
        a new block that all entering edges go through, with header phi entries from
        several entering blocks merged into a phi there. Keeps this LoopInfo (the new
        block joins the enclosing loops) and its dominator tree up to date."""
        pre = loop.preheader
        if pre is not None:
            return pre
        from enzc.ir.builder import new_block  # late: the builder imports nothing from here
        from enzc.ir.transforms import redirect_edges

        header = loop.header
        fn = header.parent
        assert fn is not None
        entering = loop.entering_blocks
        pos = fn.blocks.index(header)
        pre = new_block(fn, f"{header.name or 'loop'}.preheader", after=fn.blocks[pos - 1] if pos else None)
        if pos == 0:
            fn.blocks.remove(pre)
            fn.blocks.insert(0, pre)
        for e in entering:
            redirect_edges(e, header, pre)
        for phi in header.phis:
            outside = [(v, b) for v, b in phi.incoming if b in entering]
            inside = [(v, b) for v, b in phi.incoming if b not in entering]
            merged: Value = outside[0][0]
            if any(v is not merged for v, _ in outside):
                merged = Phi(phi.type, outside)
                merged.name = None if phi.name is None else f"{phi.name}.ph"
                pre.append(merged)
            phi.set_operands([x for pair in [(merged, pre), *inside] for x in pair])
        pre.append(Br(header))
        parent = loop.parent
        if parent is not None:
            self._innermost[pre] = parent
        while parent is not None:
            parent.block_set.add(pre)
            parent.blocks.append(pre)
            parent = parent.parent
        self.dom = DominatorTree(fn)
        return pre

    def __iter__(self) -> Iterator[Loop]:
        """Every loop, outer before inner."""
        stack = list(reversed(self.loops))
        while stack:
            loop = stack.pop()
            yield loop
            stack.extend(reversed(loop.subloops))

    def loop_for(self, block: BasicBlock) -> Loop | None:
        """The innermost loop containing `block`."""
        return self._innermost.get(block)

    def loops_of(self, block: BasicBlock) -> list[Loop]:
        """The loops containing `block`, outermost first (empty outside loops)."""
        loop = self._innermost.get(block)
        return loop.enclosing() if loop is not None else []

    def depth(self, block: BasicBlock) -> int:
        """Loop nesting depth of `block` (0 outside loops)."""
        loop = self._innermost.get(block)
        return loop.depth if loop is not None else 0

    def is_header(self, block: BasicBlock) -> bool:
        loop = self._innermost.get(block)
        return loop is not None and loop.header is block


class IrreducibleError(Exception):
    """A cycle entered other than through a single header that dominates it."""

    def __init__(self, block: BasicBlock) -> None:
        super().__init__(f"irreducible control flow at block %{block.name}")
        self.block = block


def reject_irreducible(fn: Function, dom: DominatorTree | None = None) -> None:
    """Raise `IrreducibleError` if `fn` has a cycle that is not a natural loop: an
    edge back to a block (in reverse post-order) that does not dominate its source.
    `LoopInfo` alone would leave such a cycle out of its loops."""
    dom = dom if dom is not None else DominatorTree(fn)
    order = {b: i for i, b in enumerate(reverse_post_order(fn))}
    for b, i in order.items():
        for s in b.successors:
            if order.get(s, -1) <= i and s in order and not dom.block_dominates(s, b):
                raise IrreducibleError(s)
