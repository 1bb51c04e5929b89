"""Records holding fixed arrays beside ints, pointers and doubles: filled from
active values, copied whole (assignment, memcpy, a `void *` copy helper every record
of the function shares, into the heap, into an array of records), read at run-time
indices in loops, passed to helpers by pointer and by value. A variable index into
one field must not be taken for the fields beside it.
"""

from __future__ import annotations

from .context import Arr, FunctionContext
from .expressions import expression, squash
from .blocks_calls import LINKAGES, linked
from .statements import any_array


def record_block(ctx: FunctionContext) -> None:
    """One record type, one record filled from the pool, one use of it; the use's
    sum joins the pool."""
    length = ctx.rng.randint(2, 4)
    rows = 2 if ctx.chance(0.25) else 0
    name = ctx.global_name("R")
    array = f"double m[{rows}][{length}];" if rows else f"double v[{length}];"
    fields = ["int n;", array, "const double *p;", "double w;"]
    ctx.rng.shuffle(fields)
    ctx.add_toplevel(f"struct {name} {{ {' '.join(fields)} }};")
    target = any_array(ctx, min_len=1, writable=False)
    rec, i = ctx.fresh("r"), ctx.fresh("i")
    w = squash(ctx, expression(ctx, 1))
    e = squash(ctx, expression(ctx, 1))
    ctx.emit(f"struct {name} {rec};")
    ctx.emit(f"{rec}.n = {length}; {rec}.p = {target.name}; {rec}.w = {w.text};")
    slots = length * max(rows, 1)
    with ctx.scope(f"for (int {i} = 0; {i} < {slots}; {i}++)"):
        ctx.emit(f"{_slot(rec + '.', rows, length, i)} = {e.text} * (0.5 + 0.25 * {i});")
    element = e.bound * (0.5 + 0.25 * slots)
    use = ctx.rng.choice([_local_copy, _memcpy_copy, _shared_helper_copy, _heap_copy, _record_array,
                          _helper_by_pointer, _helper_by_value])
    text = use(ctx, name, rec, rows, length, target)
    bound = 1.25 * (slots * element * target.bound + w.bound * length)
    ctx.declare("rv", text, bound)


def _slot(prefix: str, rows: int, length: int, i: str) -> str:
    """The record's array element number `i` (row-major over both rows of `m`)."""
    return f"{prefix}m[{i} / {length}][{i} % {length}]" if rows else f"{prefix}v[{i}]"


def _sum(ctx: FunctionContext, prefix: str, rows: int, length: int, target: Arr) -> str:
    """A loop summing the record's elements times what its pointer points to, then
    its double times its int; returns the accumulator's name."""
    acc, j = ctx.fresh("acc"), ctx.fresh("j")
    ctx.emit(f"double {acc} = {prefix}w * {prefix}n;")
    slots = length * max(rows, 1)
    with ctx.scope(f"for (int {j} = 0; {j} < {slots}; {j}++)"):
        ctx.emit(f"{acc} += {_slot(prefix, rows, length, j)} * {prefix}p[{j} % {target.length}];")
    return acc


def _local_copy(ctx: FunctionContext, name: str, rec: str, rows: int, length: int, target: Arr) -> str:
    copy = ctx.fresh("rc")
    ctx.emit(f"struct {name} {copy} = {rec};")
    return _sum(ctx, copy + ".", rows, length, target)


def _memcpy_copy(ctx: FunctionContext, name: str, rec: str, rows: int, length: int, target: Arr) -> str:
    copy = ctx.fresh("rc")
    ctx.emit(f"struct {name} {copy};")
    ctx.emit(f"memcpy(&{copy}, &{rec}, sizeof {copy});")
    return _sum(ctx, copy + ".", rows, length, target)


def _shared_helper_copy(ctx: FunctionContext, name: str, rec: str, rows: int, length: int, target: Arr) -> str:
    """A copy by the function's `void *` helper (`memcpy` of the byte count it is
    given), which the function's other records go through too."""
    if ctx.copy_helper is None:
        ctx.copy_helper = ctx.global_name("copy")
        link = ctx.rng.choice(["__attribute__((noinline))", "static __attribute__((noinline))", "static"])
        ctx.add_toplevel(linked(link, f"void {ctx.copy_helper}(void *to, const void *from, unsigned long n) {{\n"
                                      "    memcpy(to, from, n);\n}\n"))
    copy = ctx.fresh("rc")
    ctx.emit(f"struct {name} {copy};")
    ctx.emit(f"{ctx.copy_helper}(&{copy}, &{rec}, sizeof {copy});")
    acc = _sum(ctx, copy + ".", rows, length, target)
    if ctx.chance(0.5):
        _side_record_copy(ctx, rec, acc)
    return acc


def _side_record_copy(ctx: FunctionContext, rec: str, acc: str) -> None:
    """A record of another layout (an int, two doubles and a char array, shuffled)
    through the same helper; adds w / 4 to `acc` (within the bound's slack)."""
    side = ctx.global_name("S")
    fields = ["int k;", "double a;", "char tag[3];", "double b;"]
    ctx.rng.shuffle(fields)
    ctx.add_toplevel(f"struct {side} {{ {' '.join(fields)} }};")
    src, dst = ctx.fresh("s"), ctx.fresh("sc")
    ctx.emit(f"struct {side} {src}, {dst};")
    ctx.emit(f"{src}.k = 2; {src}.a = {rec}.w; {src}.b = -{rec}.w; {src}.tag[0] = 'x';")
    ctx.emit(f"{ctx.copy_helper}(&{dst}, &{src}, sizeof {dst});")
    ctx.emit(f"{acc} += ({dst}.a + 0.5 * {dst}.b) * 0.25 * {dst}.k;")


def _heap_copy(ctx: FunctionContext, name: str, rec: str, rows: int, length: int, target: Arr) -> str:
    heap = ctx.fresh("rh")
    ctx.emit(f"struct {name} *{heap} = malloc(sizeof *{heap});")
    ctx.emit(f"*{heap} = {rec};")
    ctx.frees.append(heap)
    return _sum(ctx, heap + "->", rows, length, target)


def _record_array(ctx: FunctionContext, name: str, rec: str, rows: int, length: int, target: Arr) -> str:
    """Copies of the record in an array, each scaled at one index, summed over both
    indices."""
    count = ctx.rng.randint(2, 3)
    arr, k, j = ctx.fresh("ra"), ctx.fresh("k"), ctx.fresh("j")
    slots = length * max(rows, 1)
    ctx.emit(f"struct {name} {arr}[{count}];")
    with ctx.scope(f"for (int {k} = 0; {k} < {count}; {k}++)"):
        ctx.emit(f"{arr}[{k}] = {rec};")
        ctx.emit(f"{_slot(f'{arr}[{k}].', rows, length, f'({k} % {slots})')} *= 1.0 + 0.125 * {k};")
    acc = ctx.fresh("acc")
    ctx.emit(f"double {acc} = 0.0;")
    with ctx.scope(f"for (int {k} = 0; {k} < {count}; {k}++)"):
        with ctx.scope(f"for (int {j} = 0; {j} < {slots}; {j}++)"):
            ctx.emit(f"{acc} += {_slot(f'{arr}[{k}].', rows, length, j)} * {arr}[{k}].p[{j} % {target.length}];")
        ctx.emit(f"{acc} += {arr}[{k}].w * {arr}[{k}].n;")
    return f"{acc} / {count}.0"


def _helper_by_pointer(ctx: FunctionContext, name: str, rec: str, rows: int, length: int, target: Arr) -> str:
    return _helper(ctx, name, rec, rows, length, target, f"const struct {name} *s", "s->", f"&{rec}")


def _helper_by_value(ctx: FunctionContext, name: str, rec: str, rows: int, length: int, target: Arr) -> str:
    return _helper(ctx, name, rec, rows, length, target, f"struct {name} s", "s.", rec)


def _helper(ctx: FunctionContext, name: str, rec: str, rows: int, length: int, target: Arr,
            param: str, prefix: str, arg: str) -> str:
    fn, j = ctx.global_name("rsum"), "j"
    slots = length * max(rows, 1)
    ctx.add_toplevel(linked(ctx.rng.choice(LINKAGES), f"double {fn}({param}) {{\n"
                            f"    double acc = {prefix}w * {prefix}n;\n"
                            f"    for (int {j} = 0; {j} < {prefix}n * {max(rows, 1)}; {j}++)\n"
                            f"        acc += {_slot(prefix, rows, length, j)} * {prefix}p[{j} % {target.length}];\n"
                            f"    return acc;\n}}\n"))
    return f"{fn}({arg})"
