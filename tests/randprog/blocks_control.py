"""Control flow: loops with constant and data-dependent trip counts, branches, and
bounded recursion."""

from __future__ import annotations

from .context import Arr, Callee, FunctionContext, Val
from .expressions import Operand, condition, expression, lit, squash
from .statements import accumulator, any_array, bounded, call_text, element, new_value, update


def loop_const(ctx: FunctionContext) -> None:
    """for loops over a constant count, reading an array; sometimes nested, sometimes
    updating the array in place."""
    arr = any_array(ctx, writable=False)
    trips = ctx.rng.choice([arr.length, ctx.rng.randint(2, 12)])
    acc = accumulator(ctx)
    i = ctx.fresh("i")
    in_place = arr.writable and ctx.has("overwrite") and ctx.chance(0.4)
    with ctx.scope(f"for (int {i} = 0; {i} < {trips}; {i}++)"):
        ctx.ints.append(i)
        idx = i if trips <= arr.length else f"{i} % {arr.length}"
        read = bounded(f"{arr.name}[{idx}]", ctx) if in_place else element(arr, idx)
        extra = [read, Operand(f"{lit(ctx.const(0.05, 0.3), 'double')} * {i}", 0.3 * trips)]
        if in_place:
            update(ctx, acc, extra, arr, idx)
            update(ctx, acc, extra)
        elif ctx.chance(0.3):
            j = ctx.fresh("j")
            inner = ctx.rng.randint(2, 5)
            with ctx.scope(f"for (int {j} = 0; {j} < {inner}; {j}++)"):
                ctx.ints.append(j)
                extra.append(element(arr, f"({i} + {j}) % {arr.length}"))
                update(ctx, acc, extra)
        else:
            update(ctx, acc, extra)


def loop_data(ctx: FunctionContext) -> None:
    """Trip counts the compiler cannot know: the int argument n (1 <= n <= n_max), a
    while loop halving it, a do-while, an early break, a count read from a table."""
    ctx.needs_n = True
    acc = accumulator(ctx)
    arr = ctx.pick_array(min_len=1)
    i = ctx.fresh("i")
    kind = ctx.rng.choice(["for", "while", "do", "break", "table"])
    extra: list[Operand] = []
    if arr is not None:
        extra.append(element(arr, f"{i} % {arr.length}"))
    if kind == "for":
        header = f"for (int {i} = 0; {i} < n; {i}++)"
    elif kind == "while":
        ctx.emit(f"int {i} = n;")
        header = f"while ({i} > 0)"
    elif kind == "do":
        ctx.emit(f"int {i} = 0;")
        header = "do"
    elif kind == "break":
        header = f"for (int {i} = 0; {i} < 16; {i}++)"
    else:
        table = ctx.global_name("count")
        counts = [ctx.rng.randint(1, 6) for _ in range(4)]
        ctx.add_toplevel(f"static const int {table}[4] = {{{', '.join(map(str, counts))}}};")
        header = f"for (int {i} = 0; {i} < {table}[n % 4]; {i}++)"
    with ctx.scope(header):
        ctx.ints.append(i)
        if kind == "break":
            ctx.emit(f"if ({i} >= n) break;")
        update(ctx, acc, extra)
        if kind == "while":
            ctx.emit(f"{i} = {i} / 2 - (n % 2);" if ctx.chance(0.3) else f"{i} -= 2;")
    if kind == "do":
        ctx.lines[-1] += f" while (++{i} < n);"


def branch(ctx: FunctionContext) -> None:
    """if/else, else-if chains, ?:, switch on an int, and an if that updates a value."""
    kind = ctx.rng.choice(["if_else", "ternary", "else_if", "switch", "if_only"])
    if kind == "ternary":
        a, b = expression(ctx, 2), expression(ctx, 2)
        ctx.declare("t", f"({condition(ctx)}) ? {a.text} : {b.text}", max(a.bound, b.bound))
        return
    if kind == "if_only":
        target = next((v for v in reversed(ctx.pool) if not v.is_input and v.ctype == "double"), None)
        if target is not None:
            e = squash(ctx, expression(ctx, 2))
            with ctx.scope(f"if ({condition(ctx)})"):
                ctx.emit(f"{target.name} = 0.5 * {target.name} + {e.text};")
            target.bound = 0.5 * target.bound + e.bound
            return
    name = ctx.fresh("t")
    ctx.emit(f"double {name};")
    arms: list[tuple[str, float]] = []
    if kind == "switch":
        sel = ctx.int_index()
        with ctx.scope(f"switch (({sel}) % 3)"):
            for case in ("case 0:", "case 1:", "default:"):
                e = squash(ctx, expression(ctx, 2))
                ctx.emit(f"{case} {name} = {e.text}; break;")
                arms.append((e.text, e.bound))
    else:
        conds = [condition(ctx)] + ([condition(ctx)] if kind == "else_if" else [])
        headers = [f"if ({conds[0]})"] + [f"else if ({c})" for c in conds[1:]] + ["else"]
        for header in headers:
            with ctx.scope(header):
                if ctx.chance(0.3):
                    new_value(ctx)
                e = squash(ctx, expression(ctx, 2))
                ctx.emit(f"{name} = {e.text};")
                arms.append((e.text, e.bound))
    ctx.pool.append(Val(name, max(b for _, b in arms)))


def recursion(ctx: FunctionContext) -> None:
    """A bounded recursive helper: linear (depth from a constant or n), tree-shaped,
    or walking an array."""
    kind = ctx.rng.choice(["linear", "linear", "tree", "array"])
    if kind == "array":
        _array_recursion(ctx)
        return
    name = ctx.global_name("rec")
    child = ctx.child()
    child.pool = [Val("a", 2.0), Val("b", 2.0)]
    base = squash(child, expression(child, 2))
    step = f"{'tanh' if child.chance(0.5) else 'sin'}({expression(child, 1).text})"
    c1 = round(child.rng.uniform(0.3, 0.8), 2)
    if kind == "tree":
        step2 = f"cos({expression(child, 1).text})"
        rec = f"{c1:.2f} * {name}({step}, b, d - 1) + {1 - c1:.2f} * {name}({step2}, a, d - 1)"
        bound = base.bound
    else:
        e = squash(child, expression(child, 2))
        rec = f"{c1:.2f} * {name}({step}, b, d - 1) + {lit(child.const(0.2, 1.0), 'double')} * {e.text}"
        bound = (base.bound + e.bound) / (1 - c1)
    ctx.adopt(child, f"static double {name}(double a, double b, int d) {{\n"
                     f"    if (d <= 0)\n        return {base.text};\n"
                     f"    return {rec};\n}}\n")
    depth = ctx.rng.randint(1, 3 if kind == "tree" else 6)
    if ctx.has("loop_data") and ctx.chance(0.5):
        ctx.needs_n = True
        depth_text = "n"
    else:
        depth_text = str(depth)
    callee = Callee(f"{name}({{0}}, {{1}}, {depth_text})", 2, bound, arg_bound=2.0)
    ctx.callees.append(callee)
    e = call_text(ctx, callee)
    ctx.declare("r", e.text, bound)


def _array_recursion(ctx: FunctionContext) -> None:
    """double f(const double *p, int m) = g(p[0]) + c * f(p + 1, m - 1)."""
    arr = any_array(ctx, min_len=2, writable=False)
    name = ctx.global_name("rsum")
    child = ctx.child()
    child.pool = [Val("q", arr.bound)]
    child.arrays = [Arr("p", 1, arr.bound, writable=False)]
    g = squash(child, expression(child, 2, "double", [Operand("p[0]", arr.bound)]))
    c = round(child.rng.uniform(0.3, 0.9), 2)
    ctx.adopt(child, f"static double {name}(const double *p, int m, double q) {{\n"
                     f"    if (m <= 1)\n        return {g.text};\n"
                     f"    return {g.text} + {c:.2f} * {name}(p + 1, m - 1, q);\n}}\n")
    q = ctx.pick("double") if ctx.pool else None
    q_text = q.name if q is not None and q.ctype == "double" and q.bound <= arr.bound else "0.5"
    ctx.declare("r", f"{name}({arr.name}, {arr.length}, {q_text})", g.bound / (1 - c))
