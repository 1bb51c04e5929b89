"""Memory: in-place overwrites, aliasing pointers, heap scratch, memcpy/memmove/
memset, gathers and scatters, constant tables, pointers chosen by a condition,
sorting with qsort.

Every block ends by reading what it wrote into a new value (`read_back`), so the
memory traffic reaches the outputs.
"""

from __future__ import annotations

from .context import Arr, FunctionContext, Val
from .expressions import Operand, condition, expression, lit, squash
from .statements import any_array, bounded, element, involving, new_array, read_back, sum_loop


def _x(ctx: FunctionContext) -> Arr | None:
    return next((a for a in ctx.arrays if a.name == "x"), None)


def _local(ctx: FunctionContext, min_len: int = 2) -> Arr:
    """A writable array other than x, new if there is none."""
    cands = [a for a in ctx.arrays if a.writable and a.name != "x" and a.length >= min_len]
    if cands and ctx.chance(0.6):
        return ctx.rng.choice(cands)
    return new_array(ctx, ctx.rng.randint(max(min_len, 3), max(min_len, 8)))


def overwrite(ctx: FunctionContext) -> None:
    """x[k] rewritten in place, a sweep arr[i] = f(arr[i], arr[i-1]), an element
    overwritten by a constant, a scalar reassigned."""
    kind = ctx.rng.choice(["input", "sweep", "const", "reassign"])
    x = _x(ctx)
    if kind == "input" and x is not None:
        k = ctx.rng.randrange(x.length)
        e = squash(ctx, expression(ctx, 2, "double", [element(x, str(k))]))
        op = ctx.rng.choice(["=", "+=", "*="])
        ctx.emit(f"x[{k}] {op} {e.text};")
        ctx.mark_written(x)
        x.bound = {"=": e.bound, "+=": x.bound + e.bound, "*=": x.bound * e.bound}[op]
        read_back(ctx, x)
        return
    if kind == "reassign":
        target = next((v for v in reversed(ctx.pool) if not v.is_input and v.ctype == "double"), None)
        if target is not None:
            e = squash(ctx, expression(ctx, 2))
            ctx.emit(f"{target.name} = {target.name} * {lit(ctx.const(0.2, 0.9), 'double')} + {e.text};")
            target.bound = 0.9 * target.bound + e.bound
            return
    arr = _local(ctx, 3)
    if kind == "const":
        k = ctx.rng.randrange(arr.length)
        value = ctx.rng.choice(["0.0", ctx.const()])
        ctx.emit(f"{arr.name}[{k}] = {value};")
        arr.bound = max(arr.bound, 1.5)
    else:
        i = ctx.fresh("i")
        with ctx.scope(f"for (int {i} = 1; {i} < {arr.length}; {i}++)"):
            prev = bounded(f"{arr.name}[{i} - 1]", ctx)
            e = squash(ctx, involving(ctx, expression(ctx, 1, "double", [prev]), prev))
            a = round(ctx.rng.uniform(0.2, 0.8), 2)
            ctx.emit(f"{arr.name}[{i}] = {a:.2f} * {arr.name}[{i}] + {1 - a:.2f} * {e.text};")
        arr.bound = max(arr.bound, e.bound)
    read_back(ctx, arr)


def alias(ctx: FunctionContext) -> None:
    """Two pointers into one array with overlapping windows, used directly or passed
    to a helper that reads one and writes the other."""
    x = _x(ctx)
    arr = x if x is not None and x.length >= 4 and ctx.chance(0.2) else _local(ctx, 4)
    ctx.mark_written(arr)
    a, b = ctx.rng.sample(range(0, min(3, arr.length - 1)), 2)
    m = arr.length - max(a, b)
    p, q = ctx.fresh("p"), ctx.fresh("q")
    ctx.emit(f"double *{p} = {arr.name} + {a};")
    ctx.emit(f"double *{q} = {arr.name} + {b};")
    if ctx.has("helper") and ctx.chance(0.5):
        name = ctx.global_name("axpy")
        attr = ctx.rng.choice(["static __attribute__((noinline))", "__attribute__((noinline))", "static"])
        ctx.add_toplevel(f"{attr} void {name}(double *dst, const double *src, int m, double c) {{\n"
                         f"    for (int i = 0; i < m; i++)\n"
                         f"        dst[i] = 0.5 * dst[i] + c * sin(src[i]);\n}}\n")
        c = ctx.pick("double")
        c_text = c.name if c.bound <= 10 else f"tanh({c.name})"
        ctx.emit(f"{name}({p}, {q}, {m}, {c_text});")
        arr.bound = max(arr.bound, 2.0 * min(c.bound, 10.0))
    else:
        i = ctx.fresh("i")
        with ctx.scope(f"for (int {i} = 0; {i} < {m}; {i}++)"):
            src = bounded(f"{q}[{i}]", ctx)
            e = squash(ctx, involving(ctx, expression(ctx, 1, "double", [src]), src))
            ctx.emit(f"{p}[{i}] = 0.5 * {p}[{i}] + 0.5 * {e.text};")
        arr.bound = max(arr.bound, e.bound)
    read_back(ctx, arr)


def malloc_scratch(ctx: FunctionContext) -> None:
    """malloc/calloc/realloc'd arrays, filled, read, freed (at once or at the end)."""
    length = ctx.rng.randint(3, 8)
    name = ctx.fresh("m")
    kind = ctx.rng.choice(["malloc", "calloc", "realloc", "malloc_sizeof"])
    first = length if kind != "realloc" else max(1, length - 2)
    alloc = {"malloc": f"malloc({first} * sizeof(double))",
             "malloc_sizeof": f"(double *)malloc(sizeof *{name} * {first})",
             "calloc": f"calloc({first}, sizeof(double))",
             "realloc": f"malloc({first} * sizeof(double))"}[kind]
    ctx.emit(f"double *{name} = {alloc};")
    i = ctx.fresh("i")
    with ctx.scope(f"for (int {i} = 0; {i} < {first}; {i}++)"):
        e = squash(ctx, expression(ctx, 1, "double", [Operand(f"(0.1 * {i})", 0.1 * length)]))
        ctx.emit(f"{name}[{i}] {'+=' if kind == 'calloc' else '='} {e.text};")
    arr = Arr(name, length, e.bound)
    if kind == "realloc":
        ctx.emit(f"{name} = realloc({name}, {length} * sizeof(double));")
        with ctx.scope(f"for (int {i} = {first}; {i} < {length}; {i}++)"):
            tail = squash(ctx, expression(ctx, 1))
            ctx.emit(f"{name}[{i}] = {name}[{i} - 1] * 0.5 + {tail.text};")
        arr.bound = max(arr.bound, 2.0 * tail.bound)
    ctx.arrays.append(arr)
    if ctx.chance(0.4):
        sum_loop(ctx, arr)
        ctx.emit(f"free({name});")
        ctx.arrays.remove(arr)
    else:
        read_back(ctx, arr)
        ctx.frees.append(name)


def memops(ctx: FunctionContext) -> None:
    """memcpy/memmove/memset of doubles: whole arrays, shifted windows, one element,
    one element from a constant table."""
    kind = ctx.rng.choice(["copy", "move", "set_all", "set_one", "copy_const", "copy_part"])
    if kind == "copy":
        src = any_array(ctx, min_len=2, writable=False)
        dst = ctx.fresh("c")
        ctx.emit(f"double {dst}[{src.length}];")
        ctx.emit(f"memcpy({dst}, {src.name}, {src.length} * sizeof(double));")
        arr = Arr(dst, src.length, src.bound)
        ctx.arrays.append(arr)
        k = ctx.rng.randrange(arr.length)
        e = squash(ctx, expression(ctx, 1, "double", [element(arr, str(k))]))
        ctx.emit(f"{dst}[{k}] = {e.text};")
        arr.bound = max(arr.bound, e.bound)
    else:
        x = _x(ctx)
        into_x = kind in ("set_one", "copy_const") and x is not None and ctx.chance(0.25)
        arr = x if into_x and x is not None else _local(ctx, 3)
        ctx.mark_written(arr)
        n = arr.length
        if kind == "move":
            ctx.emit(f"memmove({arr.name} + 1, {arr.name}, {n - 1} * sizeof(double));")
        elif kind == "set_all":
            ctx.emit(f"memset({arr.name}, 0, sizeof(double) * {n});")
            for k in sorted(ctx.rng.sample(range(n), ctx.rng.randint(1, n - 1))):
                e = squash(ctx, expression(ctx, 2))
                ctx.emit(f"{arr.name}[{k}] = {e.text};")
                arr.bound = max(arr.bound, e.bound)
        elif kind == "set_one":
            ctx.emit(f"memset(&{arr.name}[{ctx.rng.randrange(n)}], 0, sizeof(double));")
        elif kind == "copy_const":
            table = const_table_array(ctx)
            ctx.emit(f"memcpy({arr.name} + {ctx.rng.randrange(n)}, {table.name} + "
                     f"{ctx.rng.randrange(table.length)}, sizeof(double));")
            arr.bound = max(arr.bound, table.bound)
        else:
            src = any_array(ctx, min_len=2, writable=False)
            if src is arr:  # memcpy must not overlap
                src = new_array(ctx, ctx.rng.randint(2, 6))
            m = ctx.rng.randint(1, min(src.length, n))
            ctx.emit(f"memcpy({arr.name} + {n - m}, {src.name}, {m} * sizeof({arr.name}[0]));")
            arr.bound = max(arr.bound, src.bound)
    read_back(ctx, arr)


def const_table_array(ctx: FunctionContext) -> Arr:
    """An existing constant table, or a new `static const double T[L] = {...};`."""
    tables = [a for a in ctx.arrays if not a.writable and a.name != "x"]
    if tables and ctx.chance(0.5):
        return ctx.rng.choice(tables)
    name = ctx.global_name("W")
    length = ctx.rng.randint(3, 8)
    values = [ctx.const(0.05, 2.0) for _ in range(length)]
    storage = ctx.rng.choice(["static const double", "const double"])
    ctx.add_toplevel(f"{storage} {name}[{length}] = {{{', '.join(values)}}};")
    arr = Arr(name, length, 2.0, writable=False)
    ctx.arrays.append(arr)
    return arr


def const_table(ctx: FunctionContext) -> None:
    """A constant table read in active code: weights in a loop, a lookup by an int."""
    table = const_table_array(ctx)
    if ctx.chance(0.5):
        arr = any_array(ctx, min_len=1, writable=False)
        acc, i = ctx.fresh("dot"), ctx.fresh("i")
        ctx.emit(f"double {acc} = 0.0;")
        with ctx.scope(f"for (int {i} = 0; {i} < {table.length}; {i}++)"):
            idx = i if arr.length >= table.length else f"{i} % {arr.length}"
            item = element(arr, idx)
            e = squash(ctx, involving(ctx, expression(ctx, 1, "double", [item]), item))
            ctx.emit(f"{acc} += {table.name}[{i}] * {e.text};")
        ctx.pool.append(Val(acc, table.length * 2.0 * e.bound))
    else:
        idx = f"({ctx.int_index()}) % {table.length}"
        e = expression(ctx, 1)
        ctx.declare("w", f"{table.name}[{idx}] * {e.text}", 2.0 * e.bound)


def gather(ctx: FunctionContext) -> None:
    """Gather from and scatter into arrays through index tables: a constant table or,
    in the function itself, its `const int *ix` argument (indices into x)."""
    x = _x(ctx)
    use_ix = x is not None and ctx.ix_len > 0 and ctx.chance(0.5)
    if use_ix:
        assert x is not None
        ctx.needs_ix = True
        src, index, count = x, "ix", ctx.ix_len
    else:
        src = any_array(ctx, min_len=2, writable=False)
        count = ctx.rng.randint(3, 8)
        index = ctx.global_name("idx")
        values = [str(ctx.rng.randrange(src.length)) for _ in range(count)]
        ctx.add_toplevel(f"static const int {index}[{count}] = {{{', '.join(values)}}};")
    i = ctx.fresh("i")
    if ctx.chance(0.5):  # gather
        dst = ctx.fresh("g")
        ctx.emit(f"double {dst}[{count}];")
        with ctx.scope(f"for (int {i} = 0; {i} < {count}; {i}++)"):
            item = element(src, f"{index}[{i}]")
            e = squash(ctx, involving(ctx, expression(ctx, 1, "double", [item]), item))
            ctx.emit(f"{dst}[{i}] = {e.text};")
        arr = Arr(dst, count, e.bound)
        ctx.arrays.append(arr)
    else:  # scatter-add, indices may repeat
        arr = Arr(ctx.fresh("sc"), src.length, 0.0)
        ctx.emit(f"double {arr.name}[{src.length}] = {{0}};")
        with ctx.scope(f"for (int {i} = 0; {i} < {count}; {i}++)"):
            item = element(src, f"{i} % {src.length}")
            e = squash(ctx, involving(ctx, expression(ctx, 1, "double", [item]), item))
            ctx.emit(f"{arr.name}[{index}[{i}]] += {e.text};")
        arr.bound = count * e.bound
        ctx.arrays.append(arr)
    read_back(ctx, arr)


def ptr_select(ctx: FunctionContext) -> None:
    """A pointer chosen by a condition: between two active arrays (then written or
    read), between a constant table and an active array (read), or a value loaded
    from one or the other."""
    kind = ctx.rng.choice(["two_active", "const_or_active", "value"])
    cond = condition(ctx) if ctx.chance(0.6) or not ctx.ints else f"({ctx.int_index()}) % 2 == 0"
    if kind == "two_active":
        a = _local(ctx, 2)
        b = _local(ctx, 2) if ctx.chance(0.7) or _x(ctx) is None else _x(ctx)
        if b is None or b is a:
            b = new_array(ctx, ctx.rng.randint(2, 6))
        m = min(a.length, b.length)
        p = ctx.fresh("p")
        ctx.emit(f"double *{p} = ({cond}) ? {a.name} : {b.name};")
        ctx.mark_written(a)
        ctx.mark_written(b)
        if ctx.chance(0.5):
            k = ctx.rng.randrange(m)
            e = squash(ctx, expression(ctx, 2, "double", [Operand(f"{p}[{k}]", max(a.bound, b.bound))]))
            ctx.emit(f"{p}[{k}] = {e.text};")
            for arr in (a, b):
                arr.bound = max(arr.bound, e.bound)
            read_back(ctx, a)
            read_back(ctx, b)
        else:
            sum_loop(ctx, Arr(p, m, max(a.bound, b.bound), writable=False))
        return
    table = const_table_array(ctx)
    act = any_array(ctx, min_len=1, writable=False)
    while act is table:
        act = new_array(ctx, ctx.rng.randint(2, 6))
    m = min(table.length, act.length)
    if kind == "const_or_active":
        q = ctx.fresh("q")
        first, second = (table, act) if ctx.chance(0.5) else (act, table)
        ctx.emit(f"const double *{q} = ({cond}) ? {first.name} : {second.name};")
        sum_loop(ctx, Arr(q, m, max(table.bound, act.bound), writable=False))
    else:
        i, j = ctx.rng.randrange(table.length), ctx.rng.randrange(act.length)
        ctx.declare("sel", f"({cond}) ? {table.name}[{i}] : {act.name}[{j}]",
                    max(table.bound, act.bound))


def sort(ctx: FunctionContext) -> None:
    """A local array of doubles sorted by qsort (an ascending or a descending
    comparator), then a few elements read back by position (the k-th smallest: the
    derivative follows the permutation); now and then a bsearch for one of its
    values, read through the pointer it returns."""
    arr = _local(ctx, 3)
    cmp = ctx.global_name("cmp")
    sign = ctx.rng.choice(["", "-"])
    ctx.add_toplevel(f"static int {cmp}(const void *a, const void *b) {{\n"
                     f"    double x = *(const double *)a, y = *(const double *)b;\n"
                     f"    return {sign}((x > y) - (x < y));\n}}\n")
    ctx.emit(f"qsort({arr.name}, {arr.length}, sizeof(double), {cmp});")
    ctx.mark_written(arr)
    if ctx.chance(0.3):
        key, hit = ctx.fresh("key"), ctx.fresh("hit")
        ctx.emit(f"double {key} = {arr.name}[{ctx.rng.randrange(arr.length)}];")
        ctx.emit(f"const double *{hit} = bsearch(&{key}, {arr.name}, {arr.length}, sizeof(double), {cmp});")
        ctx.declare("v", f"({hit} ? *{hit} : 0.0)", arr.bound)
    read_back(ctx, arr)


_SIGN_BITS = {"abs": "&= 0x7fffffffffffffffULL", "neg": "^= 0x8000000000000000ULL"}


def bits(ctx: FunctionContext) -> None:
    """Doubles handled as integer bits: an absolute value or a negation on the
    `uint64_t` bits of one element (memcpy in and out), or an array copied, and
    now and then negated, by SSE2 integer loads and stores (`_mm_loadu_si128`,
    `_mm_xor_si128` with the sign bit)."""
    kind = ctx.rng.choice(["abs", "neg", "simd_copy", "simd_neg"])
    ctx.add_toplevel("#include <stdint.h>\n#include <emmintrin.h>")
    if kind in _SIGN_BITS:
        arr = any_array(ctx, min_len=1, writable=False)
        name = ctx.global_name("bits")
        link = ctx.rng.choice(["static", "static __attribute__((noinline))", ""])
        ctx.add_toplevel(f"{link} double {name}(const double *p) {{\n"
                         f"    uint64_t b;\n    memcpy(&b, p, sizeof b);\n    b {_SIGN_BITS[kind]};\n"
                         f"    double r;\n    memcpy(&r, &b, sizeof r);\n    return r;\n}}\n".lstrip())
        ctx.declare("v", f"{name}(&{arr.name}[{ctx.rng.randrange(arr.length)}])", arr.bound)
        return
    src = any_array(ctx, min_len=2, writable=False)
    m = src.length - src.length % 2
    dst, i = ctx.fresh("s"), ctx.fresh("i")
    moved = f"_mm_loadu_si128((const __m128i *)({src.name} + {i}))"
    if kind == "simd_neg":
        moved = f"_mm_xor_si128({moved}, _mm_set1_epi64x((long long)0x8000000000000000ULL))"
    ctx.emit(f"double {dst}[{m}];")
    with ctx.scope(f"for (int {i} = 0; {i} < {m}; {i} += 2)"):
        ctx.emit(f"_mm_storeu_si128((__m128i *)({dst} + {i}), {moved});")
    arr = Arr(dst, m, src.bound)
    ctx.arrays.append(arr)
    read_back(ctx, arr)
