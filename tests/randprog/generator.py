"""Seed -> one random differentiable C function (with its helpers, types and tables).

    fn = generate(1234)
    fn.code          # C text: definitions, then `double rp1234(double *x, ..., double *y)`
    fn.signature     # what the driver passes and reads back

The same seed (and feature probabilities) always gives the same text: the generator
draws everything from `random.Random(seed)`. Names are prefixed `rp<seed>` so any
set of functions fits in one translation unit.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from collections.abc import Callable

from . import blocks_calls, blocks_control, blocks_memory, blocks_records
from .context import INPUT_BOUND, Arr, FunctionContext, Signature, Val
from .expressions import expression, squash
from .features import select
from .statements import new_value

BLOCKS: dict[str, Callable[[FunctionContext], None]] = {
    "loop_const": blocks_control.loop_const,
    "loop_data": blocks_control.loop_data,
    "branch": blocks_control.branch,
    "recursion": blocks_control.recursion,
    "overwrite": blocks_memory.overwrite,
    "alias": blocks_memory.alias,
    "malloc": blocks_memory.malloc_scratch,
    "memops": blocks_memory.memops,
    "gather": blocks_memory.gather,
    "const_table": blocks_memory.const_table,
    "ptr_select": blocks_memory.ptr_select,
    "helper": blocks_calls.helper,
    "fnptr": blocks_calls.fnptr,
    "struct": blocks_calls.struct_block,
    "float": blocks_calls.float_block,
    "record": blocks_records.record_block,
    "dispatch": blocks_calls.dispatch,
    "sort": blocks_memory.sort,
    "bits": blocks_memory.bits,
}
"""Feature -> block writer. `libm` and `kinks` have no block: they shape expressions."""


@dataclass(frozen=True)
class RandomFunction:
    """A generated function: its C text and its interface."""

    seed: int
    signature: Signature
    code: str
    """Definitions the function needs, then the function itself."""
    features: tuple[str, ...]
    """The features drawn for this function (in the order their blocks were written)."""

    @property
    def name(self) -> str:
        return self.signature.name


def function_name(seed: int) -> str:
    return f"rp{seed}"


def generate(seed: int, probabilities: dict[str, float] | None = None) -> RandomFunction:
    """The random function of `seed`."""
    rng = random.Random(seed)
    probs = probabilities if probabilities is not None else select()
    drawn = {name: rng.random() < p for name, p in probs.items()}
    ctx = FunctionContext(rng, function_name(seed), drawn)
    ctx.n_x = rng.randint(1, 6)
    ctx.ix_len = rng.randint(3, 6)
    n_s = rng.choices([0, 1, 2], weights=[5, 3, 2])[0]
    n_y = rng.choices([0, 1, 2, 3], weights=[3, 4, 2, 1])[0]
    returns = n_y == 0 or rng.random() < 0.4
    _prologue(ctx, n_s)
    order = [name for name in BLOCKS if drawn.get(name)]
    rng.shuffle(order)
    written = []
    for name in order:
        for _ in range(rng.choice([1, 1, 2])):
            BLOCKS[name](ctx)
        written.append(name)
        if rng.random() < 0.4:
            new_value(ctx)
    if not order:
        for _ in range(rng.randint(1, 4)):
            new_value(ctx)
    y_init = tuple(round(rng.uniform(-0.5, 0.5), 2) if rng.random() < 0.3 else 0.0
                   for _ in range(n_y))
    _epilogue(ctx, n_y, y_init, returns)
    sig = Signature(
        name=ctx.prefix, n_x=ctx.n_x, n_s=n_s, has_n=ctx.needs_n,
        n_max=rng.randint(2, 7), ix=tuple(rng.randrange(ctx.n_x) for _ in range(ctx.ix_len))
        if ctx.needs_ix else (), n_y=n_y, y_init=y_init, returns=returns,
        x_const=not ctx.x_written, is_static=rng.random() < 0.3,
        precision="float" if ctx.uses_float else "double")
    used = written + [f for f in ("libm", "kinks") if drawn.get(f)]
    return RandomFunction(seed, sig, _render(ctx, sig), tuple(used))


def _prologue(ctx: FunctionContext, n_s: int) -> None:
    """The inputs join the pool: x as an array, some x[i] copied to locals, scalars."""
    ctx.arrays.append(Arr("x", ctx.n_x, INPUT_BOUND))
    for k in sorted(ctx.rng.sample(range(ctx.n_x), ctx.rng.randint(1, ctx.n_x))):
        v = ctx.declare("in", f"x[{k}]", INPUT_BOUND)
        v.is_input = True
    for k in range(n_s):
        ctx.pool.append(Val(f"s{k}", INPUT_BOUND, is_input=True))


def _epilogue(ctx: FunctionContext, n_y: int, y_init: tuple[float, ...], returns: bool) -> None:
    """Write y[0..n_y) and the result from the last values; free the heap; return."""
    recent = [v for v in ctx.pool if v.ctype == "double"][-6:]
    for j in range(n_y):
        e = squash(ctx, expression(ctx, 2))
        a = ctx.rng.choice(recent)
        op = "+=" if y_init[j] != 0.0 and ctx.rng.random() < 0.5 else "="
        ctx.emit(f"y[{j}] {op} {e.text} + {ctx.const(0.3, 1.0)} * {a.name};")
    if returns:
        e = squash(ctx, expression(ctx, 2))
        ctx.emit(f"double result = {e.text} + {ctx.const(0.3, 1.0)} * {ctx.rng.choice(recent).name};")
    for name in ctx.frees:
        ctx.emit(f"free({name});")
    if returns:
        ctx.emit("return result;")


def _render(ctx: FunctionContext, sig: Signature) -> str:
    params = ["const double *x" if sig.x_const else "double *x"]
    params += [f"double s{k}" for k in range(sig.n_s)]
    if sig.has_n:
        params.append("int n")
    if sig.ix:
        params.append("const int *ix")
    if sig.n_y:
        params.append("double *y")
    head = f"{'static ' if sig.is_static else ''}{'double' if sig.returns else 'void'} " \
           f"{sig.name}({', '.join(params)})"
    body = "\n".join(ctx.lines)
    return "".join(ctx.toplevel) + f"{head} {{\n{body}\n}}\n"
