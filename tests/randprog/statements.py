"""Statements every block uses: new values, local arrays, reading arrays back, and
the update of an accumulator inside a loop or branch.

A loop body reads what the loop updates only through bounded functions (`bounded`),
so the update `t = a*t + (1-a)*e` keeps |t| <= max(|t0|, bound of e) for any trip
count, and that bound is known when the loop is written.
"""

from __future__ import annotations

from .context import Arr, Callee, FunctionContext, Val
from .expressions import Operand, condition, expression, lit, small, squash


def new_value(ctx: FunctionContext, extra: list[Operand] | None = None, t: str = "double") -> Val:
    """`double vN = <expression>;`"""
    e = expression(ctx, ctx.rng.randint(1, 3), t, extra)
    return ctx.declare("v", e.text, e.bound, t)


def element(arr: Arr, index: str) -> Operand:
    return Operand(f"{arr.name}[{index}]", arr.bound)


def new_array(ctx: FunctionContext, length: int, stem: str = "b") -> Arr:
    """A local double array filled from live values (an initializer or a loop)."""
    name = ctx.fresh(stem)
    if ctx.chance(0.5) or not ctx.pool:
        i = ctx.fresh("i")
        ctx.emit(f"double {name}[{length}];")
        bound = 0.0
        with ctx.scope(f"for (int {i} = 0; {i} < {length}; {i}++)"):
            step = Operand(f"({i} * {lit(ctx.const(0.1, 0.4, False), 'double')})", 0.4 * length)
            e = expression(ctx, 1, "double", [step])
            if not ctx.mentions_active(e.text):
                v = ctx.pick("double")
                e = involving(ctx, e, Operand(v.name, v.bound))
            e = squash(ctx, e)
            ctx.emit(f"{name}[{i}] = {e.text};")
            bound = e.bound
    else:
        items = [expression(ctx, 1) for _ in range(length)]
        ctx.emit(f"double {name}[{length}] = {{{', '.join(e.text for e in items)}}};")
        bound = max(e.bound for e in items)
    arr = Arr(name, length, bound)
    ctx.arrays.append(arr)
    return arr


def any_array(ctx: FunctionContext, min_len: int = 2, writable: bool = True) -> Arr:
    """An existing array of at least min_len elements, or a new local one."""
    arr = ctx.pick_array(writable=writable, min_len=min_len)
    if arr is None or ctx.chance(0.3):
        arr = new_array(ctx, ctx.rng.randint(max(min_len, 3), max(min_len, 8)))
    return arr


def read_back(ctx: FunctionContext, arr: Arr) -> Val:
    """A new value from a few elements of arr (so what a block wrote reaches the output)."""
    picks = sorted({ctx.rng.randrange(arr.length) for _ in range(ctx.rng.randint(1, 3))})
    extra = [element(arr, str(k)) for k in picks]
    terms = [f"{lit(ctx.const(), 'double')} * {o.text}" for o in extra]
    if ctx.chance(0.5):
        e = expression(ctx, 1, "double", extra)
        terms.append(e.text)
        bound = sum(1.5 * o.bound for o in extra) + e.bound
    else:
        bound = sum(1.5 * o.bound for o in extra)
    return ctx.declare("v", " + ".join(terms), bound)


def sum_loop(ctx: FunctionContext, arr: Arr, length: str | None = None) -> Val:
    """`double sN = 0; for (...) sN += w * f(arr[i]);`"""
    acc = ctx.fresh("sum")
    i = ctx.fresh("i")
    n = length or str(arr.length)
    ctx.emit(f"double {acc} = 0.0;")
    with ctx.scope(f"for (int {i} = 0; {i} < {n}; {i}++)"):
        item = element(arr, i)
        e = squash(ctx, involving(ctx, expression(ctx, 1, "double", [item]), item))
        ctx.emit(f"{acc} += {lit(ctx.const(0.1, 0.5), 'double')} * {e.text};")
    v = Val(acc, 0.5 * e.bound * arr.length)
    ctx.pool.append(v)
    return v


def involving(ctx: FunctionContext, e: Operand, operand: Operand) -> Operand:
    """e, or e combined with operand when e does not read it (a loop over an array
    should use its elements)."""
    if operand.text in e.text:
        return e
    if ctx.chance(0.5):
        return Operand(f"({operand.text} * {e.text})", operand.bound * e.bound)
    return Operand(f"({operand.text} + {e.text})", operand.bound + e.bound)


def call_text(ctx: FunctionContext, callee: Callee, extra: list[Operand] | None = None) -> Operand:
    """A call of callee with bounded arguments from live values."""
    args = []
    for _ in range(callee.arity):
        a = expression(ctx, 1, "double", extra)
        if a.bound > callee.arg_bound:
            a = small(ctx, a, "double", callee.arg_bound) if callee.arg_bound >= 1 else \
                Operand(f"({a.text} * {2.0 * callee.arg_bound / a.bound:.3g})", callee.arg_bound)
        args.append(a.text)
    index = ctx.int_index() if callee.indexed else ""
    return Operand(callee.template.format(*args, i=index), callee.bound)


def bounded(text: str, ctx: FunctionContext) -> Operand:
    """sin/tanh/atan of a value updated in the current loop: whatever it has grown to,
    the operand stays in [-1.6, 1.6], so the bound of what is computed from it holds
    for every trip count."""
    return Operand(f"{ctx.rng.choice(['sin', 'tanh', 'atan', 'cos'])}({text})", 1.6)


def update(ctx: FunctionContext, target: Val, extra: list[Operand] | None = None,
           arr: Arr | None = None, index: str | None = None) -> None:
    """`dest = a * dest + (1 - a) * new` (sometimes an if/else of two such updates) with
    dest = target, or arr[index] in place. `new` reads dest only through a bounded
    function, so |dest| <= max(old bound, bound of new) after any number of updates;
    the caller wraps (`bounded`) any operand in extra that reads memory the loop
    updates."""
    a = round(ctx.rng.uniform(0.3, 0.9), 2)
    dest = f"{arr.name}[{index}]" if arr is not None and index is not None else target.name
    hidden = [v for v in ctx.pool if v.name == target.name]
    ctx.pool = [v for v in ctx.pool if v.name != target.name]
    own = (extra or []) + [bounded(dest, ctx)]
    bounds: list[float] = []

    def assign() -> None:
        if ctx.callees and ctx.chance(0.35):
            new = squash(ctx, call_text(ctx, ctx.rng.choice(ctx.callees), own))
        else:
            new = squash(ctx, expression(ctx, 2, "double", own))
        bounds.append(new.bound)
        ctx.emit(f"{dest} = {a:.2f} * {dest} + {1 - a:.2f} * {new.text};")

    if ctx.has("branch") and ctx.chance(0.3):
        with ctx.scope(f"if ({condition(ctx, own)})"):
            assign()
        with ctx.scope("else"):
            assign()
    else:
        assign()
    ctx.pool.extend(hidden)
    if arr is not None:
        ctx.mark_written(arr)
        arr.bound = max(arr.bound, *bounds)
    else:
        target.bound = max(target.bound, *bounds)


def accumulator(ctx: FunctionContext) -> Val:
    """A new variable to be updated in a loop, starting from a live value."""
    start = ctx.pick("double") if ctx.pool else None
    if start is None or start.ctype != "double":
        return ctx.declare("acc", "0.5", 0.5)
    return ctx.declare("acc", start.name, start.bound)
