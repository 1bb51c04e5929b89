"""Calls and aggregates: helpers of every linkage, function-pointer tables, structs
of doubles and ints, float/double mixes."""

from __future__ import annotations

from dataclasses import dataclass

from .context import Arr, Callee, FunctionContext, Val
from .expressions import Operand, condition, expression, lit, squash
from .statements import any_array, call_text, involving, new_value, read_back, sum_loop

LINKAGES = ("static", "static inline", "__attribute__((noinline))",
            "static __attribute__((noinline))", "")


def linked(linkage: str, definition: str) -> str:
    """`linkage definition`, without a leading space when linkage is empty."""
    return f"{linkage} {definition}" if linkage else definition


def scalar_helper(ctx: FunctionContext, arity: int, linkage: str | None = None) -> Callee:
    """`double h(double a[, double b])`: a few statements, then a return."""
    name = ctx.global_name("h")
    child = ctx.child()
    params = ["a", "b", "c"][:arity]
    child.pool = [Val(p, 2.0) for p in params]
    for _ in range(child.rng.randint(0, 2)):
        new_value(child)
    if child.has("branch") and child.chance(0.3):
        e1, e2 = squash(child, expression(child, 2)), squash(child, expression(child, 2))
        ret = Operand(f"({condition(child)}) ? {e1.text} : {e2.text}", max(e1.bound, e2.bound))
    else:
        ret = squash(child, expression(child, 2))
    body = "".join(line + "\n" for line in child.lines)
    link = ctx.rng.choice(LINKAGES) if linkage is None else linkage
    sig = ", ".join(f"double {p}" for p in params)
    ctx.adopt(child, f"{link} double {name}({sig}) {{\n{body}    return {ret.text};\n}}\n".lstrip())
    args = ", ".join(f"{{{k}}}" for k in range(arity))
    return Callee(f"{name}({args})", arity, ret.bound, arg_bound=2.0)


def helper(ctx: FunctionContext) -> None:
    """A helper called from the function: scalar, reduction over an array, in-place
    update of an array, results through out-parameters, or a libm function of one
    element returned as it is (`return sin(p[k]);`: its partner for the reverse is
    fused into one sincos call in an augmented forward pass that returns it)."""
    kind = ctx.rng.choice(["scalar", "scalar", "reduce", "inplace", "outparam", "element"])
    link = ctx.rng.choice(LINKAGES)
    if kind == "scalar":
        callee = scalar_helper(ctx, ctx.rng.randint(1, 3), link)
        ctx.callees.append(callee)
        e = call_text(ctx, callee)
        ctx.declare("h", e.text, e.bound)
        return
    name = ctx.global_name("h")
    if kind == "outparam":
        c1, c2 = ctx.const(0.3, 1.0), ctx.const(0.3, 1.0)
        ctx.add_toplevel(f"{link} void {name}(double a, double b, double *o1, double *o2) {{\n"
                         f"    *o1 = {c1} * sin(a) * b;\n    *o2 = a * {c2} + cos(b);\n}}\n".lstrip())
        o1, o2 = ctx.fresh("o"), ctx.fresh("o")
        a, b = call_text(ctx, Callee("{0}", 1, 2.0, 2.0)), call_text(ctx, Callee("{0}", 1, 2.0, 2.0))
        ctx.emit(f"double {o1}, {o2};")
        ctx.emit(f"{name}({a.text}, {b.text}, &{o1}, &{o2});")
        ctx.pool += [Val(o1, 3.0), Val(o2, 3.0)]
        return
    arr = any_array(ctx, min_len=2, writable=(kind == "inplace"))
    if kind == "element":
        fn = ctx.rng.choice(["sin", "cos"])
        ctx.add_toplevel(f"{link} double {name}(const double *p, int k) {{\n"
                         f"    return {fn}(p[k]);\n}}\n".lstrip())
        ctx.declare("h", f"{name}({arr.name}, {ctx.rng.randrange(arr.length)})", 1.0)
        return
    if kind == "reduce":
        w = ctx.const(0.2, 1.0)
        ctx.add_toplevel(f"{link} double {name}(const double *p, int m) {{\n"
                         f"    double s = 0.0;\n    for (int i = 0; i < m; i++)\n"
                         f"        s += {w} * p[i] * p[i] + sin(p[i]);\n    return s;\n}}\n".lstrip())
        ctx.declare("h", f"{name}({arr.name}, {arr.length})", arr.length * (arr.bound ** 2 + 1.0))
        return
    ctx.mark_written(arr)
    ctx.add_toplevel(f"{link} void {name}(double *p, int m, double c) {{\n"
                     f"    for (int i = 1; i < m; i++)\n"
                     f"        p[i] = 0.5 * p[i] + 0.5 * tanh(c * p[i - 1]);\n}}\n".lstrip())
    c = call_text(ctx, Callee("{0}", 1, 2.0, 2.0))
    ctx.emit(f"{name}({arr.name}, {arr.length}, {c.text});")
    read_back(ctx, arr)


def fnptr(ctx: FunctionContext) -> None:
    """Function pointers: a const table indexed by an int, a pointer chosen by data,
    a struct holding one, an apply helper taking one."""
    kind = ctx.rng.choice(["table", "table", "choose", "struct", "apply"])
    count = ctx.rng.randint(2, 4)
    fns = []
    bound = 0.0
    for _ in range(count):
        libm = ctx.rng.choice(["sin", "cos", "tanh", "atan"])
        if ctx.chance(0.1):  # a libm function itself in the table
            fns.append(libm)
            bound = max(bound, 1.6)
        else:
            callee = scalar_helper(ctx, 1, ctx.rng.choice(["static", "", "__attribute__((noinline))"]))
            fns.append(callee.template.split("(")[0])
            bound = max(bound, callee.bound)
    arg = Callee("{0}", 1, 2.0, 2.0)
    if kind == "table":
        tab = ctx.global_name("tab")
        ctx.add_toplevel(f"static double (*const {tab}[{count}])(double) = {{{', '.join(fns)}}};")
        callee = Callee(f"{tab}[({{i}}) % {count}]({{0}})", 1, bound, 2.0, indexed=True)
        ctx.callees.append(callee)
        e = call_text(ctx, callee)
        ctx.declare("f", e.text, bound)
    elif kind == "choose":
        fp = ctx.fresh("fp")
        cond = condition(ctx) if ctx.chance(0.5) or not ctx.ints else f"({ctx.int_index()}) % 2"
        ctx.emit(f"double (*{fp})(double) = ({cond}) ? {fns[0]} : {fns[1]};")
        ctx.declare("f", f"{fp}({call_text(ctx, arg).text})", bound)
    elif kind == "struct":
        stype = ctx.global_name("Op")
        ctx.add_toplevel(f"struct {stype} {{ double (*f)(double); double w; }};")
        ops = ctx.fresh("ops")
        items = ", ".join(f"{{{f}, {ctx.const(0.2, 1.0)}}}" for f in fns)
        ctx.emit(f"struct {stype} {ops}[{count}] = {{{items}}};")
        acc, i = ctx.fresh("acc"), ctx.fresh("i")
        ctx.emit(f"double {acc} = 0.0;")
        with ctx.scope(f"for (int {i} = 0; {i} < {count}; {i}++)"):
            ctx.emit(f"{acc} += {ops}[{i}].w * {ops}[{i}].f({call_text(ctx, arg).text});")
        ctx.pool.append(Val(acc, count * bound))
    else:
        apply = ctx.global_name("apply")
        link = ctx.rng.choice(["static __attribute__((noinline))", "__attribute__((noinline))", "static"])
        ctx.add_toplevel(f"{link} double {apply}(double (*f)(double), const double *p, int m) {{\n"
                         f"    double s = 0.0;\n    for (int i = 0; i < m; i++)\n"
                         f"        s += f(0.5 * p[i]);\n    return s;\n}}\n".lstrip())
        arr = any_array(ctx, min_len=1, writable=False)
        if arr.bound > 4.0:
            arr = _bounded_copy(ctx, arr)
        ctx.declare("f", f"{apply}({ctx.rng.choice(fns)}, {arr.name}, {arr.length})",
                    arr.length * bound)


def dispatch(ctx: FunctionContext) -> None:
    """A helper that switches on an int operation (a type-erasing manager's shape):
    copy a double, store an address, or transform a double through `void *`,
    called with constant operations, so each case types `dst` differently. Now and
    then it first counts its calls or returns on a null `dst` (the choice after a
    write or behind a branch), and now and then it is called through a global
    function pointer (a derivative of every case; the copy is then typed, as
    nothing else says what the copied bytes are)."""
    name = ctx.global_name("m")
    c = ctx.const(0.3, 1.0)
    link = ctx.rng.choice(["__attribute__((noinline))", "static __attribute__((noinline))", "static"])
    indirect = ctx.chance(0.3)
    transform = f"{{ double v; memcpy(&v, src, sizeof v); v = {c} * sin(v); memcpy(dst, &v, sizeof v); }}"
    copy_op = "*(double *)dst = *(const double *)src;" if indirect else "memcpy(dst, src, sizeof(double));"
    if ctx.chance(0.5):
        body = (f"    switch (op) {{\n"
                f"    case 0: {copy_op} break;\n"
                f"    case 1: *(const void **)dst = src; break;\n"
                f"    case 2: {transform} break;\n"
                f"    default: break;\n    }}\n")
    else:  # the same operations as an if/else chain
        body = (f"    if (op == 1)\n        *(const void **)dst = src;\n"
                f"    else if (op == 0)\n        {copy_op}\n"
                f"    else\n        {transform}\n")
    preamble = ""
    if ctx.chance(0.3):
        ctx.add_toplevel(f"int {name}_calls;")
        preamble += f"    {name}_calls++;\n"
    if ctx.chance(0.3):
        preamble += "    if (!dst)\n        return;\n"
    ctx.add_toplevel(f"{link} void {name}(int op, void *dst, const void *src) {{\n{preamble}{body}}}\n")
    callee = name
    if indirect:
        callee = f"{name}_ptr"
        ctx.add_toplevel(f"void (*{callee})(int, void *, const void *) = {name};")
    source = ctx.declare("d", squash(ctx, expression(ctx, 2)).text, 2.0)
    copy, changed, where = ctx.fresh("d"), ctx.fresh("d"), ctx.fresh("dp")
    ctx.emit(f"double {copy}, {changed};")
    ctx.emit(f"const double *{where};")
    ctx.emit(f"{callee}(0, &{copy}, &{source.name});")
    ctx.emit(f"{callee}(1, &{where}, &{copy});")
    ctx.emit(f"{callee}(2, &{changed}, {where});")
    active = source.active
    ctx.pool += [Val(copy, source.bound, active=active), Val(changed, 1.0, active=active)]


def _bounded_copy(ctx: FunctionContext, arr: Arr) -> Arr:
    """A copy of arr squashed into [-1, 1] (for helpers that assume small arguments)."""
    name, i = ctx.fresh("u"), ctx.fresh("i")
    ctx.emit(f"double {name}[{arr.length}];")
    with ctx.scope(f"for (int {i} = 0; {i} < {arr.length}; {i}++)"):
        ctx.emit(f"{name}[{i}] = tanh({arr.name}[{i}]);")
    out = Arr(name, arr.length, 1.0)
    ctx.arrays.append(out)
    return out


@dataclass(frozen=True)
class StructType:
    """A struct of doubles and (usually) one int field k."""

    name: str
    fields: tuple[tuple[str, str], ...]

    @property
    def doubles(self) -> list[str]:
        return [n for t, n in self.fields if t == "double"]

    @property
    def has_k(self) -> bool:
        return any(n == "k" for _, n in self.fields)

    def k_term(self, prefix: str) -> str:
        return f" + 0.1 * {prefix}k" if self.has_k else ""


def _struct_type(ctx: FunctionContext) -> StructType:
    fields = [("double", "a"), ("int", "k"), ("double", "b")]
    if ctx.chance(0.25):  # doubles only: clang may copy it as integers
        fields[1] = ("double", "c")
    ctx.rng.shuffle(fields)
    if ctx.chance(0.3):
        fields.append(("double", "d"))
    st = StructType(ctx.global_name("S"), tuple(fields))
    ctx.add_toplevel(f"struct {st.name} {{ {' '.join(f'{t} {n};' for t, n in fields)} }};")
    return st


def _struct_init(ctx: FunctionContext, st: StructType) -> tuple[str, float]:
    vals = {n: squash(ctx, expression(ctx, 1)) for n in st.doubles}
    parts = [f".{n} = {vals[n].text}" if t == "double" else f".k = {ctx.rng.randint(0, 3)}"
             for t, n in st.fields]
    return "{" + ", ".join(parts) + "}", max(v.bound for v in vals.values())


def struct_block(ctx: FunctionContext) -> None:
    """Structs of doubles and ints: swapped through a temporary (or memcpy), arrays of
    them with element copies, passed by value to and returned from helpers, updated by
    pointer; their fields then flow on."""
    st = _struct_type(ctx)
    use = ctx.rng.choice([_struct_swap, _struct_array, _struct_by_value, _struct_by_pointer])
    s1, s2 = ctx.fresh("s"), ctx.fresh("s")
    (i1, b1), (i2, b2) = _struct_init(ctx, st), _struct_init(ctx, st)
    ctx.emit(f"struct {st.name} {s1} = {i1}, {s2} = {i2};")
    bound = use(ctx, st, s1, s2, max(b1, b2))
    for s in (s1, s2):
        terms = [f"{lit(ctx.const(0.2, 1.0), 'double')} * {s}.{n}" for n in st.doubles]
        ctx.declare("sf", " + ".join(terms) + st.k_term(f"{s}."), len(st.doubles) * bound + 0.4)


def _struct_swap(ctx: FunctionContext, st: StructType, s1: str, s2: str, bound: float) -> float:
    tmp = ctx.fresh("tmp")
    if ctx.has("memops") and ctx.chance(0.5):
        ctx.emit(f"struct {st.name} {tmp};")
        for a, b in ((tmp, s1), (s1, s2), (s2, tmp)):
            ctx.emit(f"memcpy(&{a}, &{b}, sizeof {a});")
    else:
        ctx.emit(f"struct {st.name} {tmp} = {s1};")
        ctx.emit(f"{s1} = {s2};")
        ctx.emit(f"{s2} = {tmp};")
    return bound


def _struct_array(ctx: FunctionContext, st: StructType, s1: str, s2: str, bound: float) -> float:
    arr, i = ctx.fresh("sa"), ctx.fresh("i")
    length = ctx.rng.randint(3, 5)
    ctx.emit(f"struct {st.name} {arr}[{length}];")
    with ctx.scope(f"for (int {i} = 0; {i} < {length}; {i}++)"):
        ctx.emit(f"{arr}[{i}] = ({i} % 2) ? {s1} : {s2};")
        ctx.emit(f"{arr}[{i}].{st.doubles[0]} *= 0.5 + 0.1 * {i};")
    ctx.emit(f"{arr}[{length - 1}] = {arr}[0];")
    ctx.emit(f"{s1} = {arr}[{ctx.rng.randrange(length)}];")
    return bound


def _struct_by_value(ctx: FunctionContext, st: StructType, s1: str, s2: str, bound: float) -> float:
    mk, use = ctx.global_name("mk"), ctx.global_name("use")
    d = st.doubles
    fills = "".join(f"    r.{n} = {'u * v' if k == 0 else 'u - v'};\n" for k, n in enumerate(d))
    ctx.add_toplevel(linked(ctx.rng.choice(LINKAGES), f"struct {st.name} {mk}(double u, double v) {{\n"
                            f"    struct {st.name} r = {{0}};\n{fills}"
                            f"{'    r.k = 2;' if st.has_k else ''}\n    return r;\n}}\n"))
    ctx.add_toplevel(linked(ctx.rng.choice(LINKAGES), f"double {use}(struct {st.name} s) {{\n"
                            f"    return s.{d[0]} * sin(s.{d[1]}){st.k_term('s.')};\n}}\n"))
    ctx.emit(f"{s2} = {mk}({s1}.{d[0]}, {s2}.{d[1]});")
    bound = bound * bound + bound
    ctx.declare("st", f"{use}({s2})", bound + 1.0)
    return bound


def _struct_by_pointer(ctx: FunctionContext, st: StructType, s1: str, s2: str, bound: float) -> float:
    upd, d = ctx.global_name("upd"), st.doubles
    cond = "s->k > 1" if st.has_k else f"s->{d[1]} > 0.0"
    ctx.add_toplevel(linked(ctx.rng.choice(LINKAGES), f"void {upd}(struct {st.name} *s, double c) {{\n"
                            f"    s->{d[0]} = s->{d[0]} * c + s->{d[1]};\n"
                            f"    if ({cond})\n        s->{d[1]} *= 0.5;\n}}\n"))
    c = call_text(ctx, Callee("{0}", 1, 2.0, 2.0))
    ctx.emit(f"{upd}(&{s1}, {c.text});")
    return bound * 3.0


def float_block(ctx: FunctionContext) -> None:
    """float locals and arrays, float libm, conversions both ways."""
    ctx.uses_float = True
    if ctx.chance(0.5):
        src = ctx.pick("double")
        ctx.declare("fl", f"(float){src.name}", src.bound, "float")
        for _ in range(ctx.rng.randint(1, 3)):
            new_value(ctx, t="float")
        e = expression(ctx, 2, "float")
        ctx.declare("v", f"(double)({e.text}) * {lit(ctx.const(0.3, 1.0), 'double')}", e.bound)
        return
    arr = any_array(ctx, min_len=2, writable=False)
    name, i = ctx.fresh("fa"), ctx.fresh("i")
    ctx.emit(f"float {name}[{arr.length}];")
    with ctx.scope(f"for (int {i} = 0; {i} < {arr.length}; {i}++)"):
        item = Operand(f"(float){arr.name}[{i}]", arr.bound)
        e = squash(ctx, involving(ctx, expression(ctx, 1, "float", [item]), item), "float")
        ctx.emit(f"{name}[{i}] = {e.text};")
    sum_loop(ctx, Arr(f"{name}", arr.length, e.bound, ctype="float", writable=False))
