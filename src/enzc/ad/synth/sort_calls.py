"""`qsort`, `qsort_r` and `bsearch` in differentiated code, as code the AD follows.

The C library sorts by calling the user's comparator from code the AD cannot see,
and moves the elements as bytes. On the private copy being differentiated (after
`preprocess.prepare`), each call `qsort(base, n, size, cmp)` becomes

    idx = malloc(n * 8);  __enzc_sort_indices(idx, n, base, size, cmp, arg, has_arg);
    tmp = malloc(n * size);
    for (i = 0; i < n; i++) memcpy(tmp + i * size, base + idx[i] * size, size);
    memcpy(base, tmp, n * size);  free(tmp);  free(idx);

`__enzc_sort_indices` sorts the indices 0..n-1 with the user's comparator (through
`qsort_r`, ties broken by index, so the order is stable) and is marked inactive:
it writes only integers. What remains is ordinary code: the adjoint of the gather
moves each element's adjoint back to where the element came from (a permutation
adds nothing up), forward mode moves the tangents along, and the memcpy of a
constant `size` is typed like any other copy of the element type.

`bsearch(key, base, n, size, cmp)` becomes an index found by the library's bsearch
(`__enzc_search_index`, inactive) and `idx < 0 ? NULL : base + idx * size`, a pointer
into `base` whose shadow points into `base`'s.
"""

from __future__ import annotations

from enzc.ir.builder import IRBuilder, new_block
from enzc.ir.instructions import CallBase
from enzc.ir.libc import declare, define_helper
from enzc.ir.module import Function, Module
from enzc.ir.transforms import split_block
from enzc.ir.types import I1, I8, I32, I64, PTR, VOID, FunctionType, StructType
from enzc.ir.values import ConstantInt, Value

from enzc.ad.analysis.annotations import INACTIVE_ATTR

SORT_INDICES = "__enzc_sort_indices"
COMPARE_INDICES = "__enzc_compare_indices"
SEARCH_INDEX = "__enzc_search_index"
_CONTEXT = StructType((PTR, I64, PTR, PTR, I1))
"""What the index comparator reads: base, element size, comparator, its argument, whether it takes one."""


def lower_sorts(fn: Function, module: Module) -> None:
    """Rewrite `fn`'s calls of `qsort`, `qsort_r` and `bsearch` (see the module docstring)."""
    calls = [(i, kind) for i in fn.instructions() if isinstance(i, CallBase) and (kind := _kind(i)) is not None]
    for call, kind in calls:
        if kind == "bsearch":
            _lower_search(module, call)
        else:
            _lower(module, call, kind == "qsort_r")


_ARITY = {"qsort": 4, "qsort_r": 5, "bsearch": 5}


def _kind(call: CallBase) -> str | None:
    callee = call.called_function
    name = callee.name if callee is not None else None
    return name if name in _ARITY and len(call.args) == _ARITY[name] else None


def _lower(module: Module, call: CallBase, with_arg: bool) -> None:
    base, n, size, cmp = call.args[:4]
    arg = call.args[4] if with_arg else IRBuilder.const_null()
    b = IRBuilder()
    b.position_before(call)
    n, size = _wide(b, n), _wide(b, size)
    malloc, free = declare(module, "malloc"), declare(module, "free")
    idx = b.call(malloc, [b.mul(n, ConstantInt(I64, 8), "sort.idx.bytes")], "sort.idx")
    b.call(_sort_indices(module), [idx, n, base, size, cmp, arg, ConstantInt(I1, int(with_arg))])
    total = b.mul(n, size, "sort.bytes")
    tmp = b.call(malloc, [total], "sort.tmp")
    pre = call.parent
    assert pre is not None and pre.parent is not None
    tail = split_block(pre, call, "sort.done")
    pre.terminator.erase()  # type: ignore[union-attr]
    # a loop in the form the reverse pass needs: a preheader, a dedicated exit
    preheader = b.insert_block_after(pre, "sort.start")
    loop = b.insert_block_after(preheader, "sort.gather")
    gathered = b.insert_block_after(loop, "sort.gathered")
    b.position_at_end(pre)
    b.cond_br(b.icmp("eq", n, ConstantInt(I64, 0), "sort.empty"), tail, preheader)
    b.position_at_end(preheader)
    b.br(loop)
    b.position_at_end(gathered)
    b.br(tail)
    b.position_at_end(loop)
    i = b.phi(I64, [(ConstantInt(I64, 0), preheader)], "sort.i")
    j = b.load(I64, b.gep(I64, idx, [i], "sort.idx.at"), "sort.j")
    src = b.gep(I8, base, [b.mul(j, size, "sort.from")], "sort.src")
    dst = b.gep(I8, tmp, [b.mul(i, size, "sort.to")], "sort.dst")
    b.call(declare(module, "llvm.memcpy.p0.p0.i64"), [dst, src, size, ConstantInt(I1, 0)])
    nxt = b.add(i, ConstantInt(I64, 1), "sort.next")
    i.add_incoming(nxt, loop)
    b.cond_br(b.icmp("ult", nxt, n, "sort.more"), loop, gathered)
    b.position_before(call)
    b.call(declare(module, "llvm.memcpy.p0.p0.i64"), [base, tmp, total, ConstantInt(I1, 0)])
    b.call(free, [tmp])
    b.call(free, [idx])
    call.erase()


def _lower_search(module: Module, call: CallBase) -> None:
    key, base, n, size, cmp = call.args
    b = IRBuilder()
    b.position_before(call)
    size = _wide(b, size)
    at = b.call(_search_index(module), [key, base, _wide(b, n), size, cmp], "search.idx")
    found = b.gep(I8, base, [b.mul(at, size, "search.offset")], "search.found")
    result = b.select(b.icmp("slt", at, ConstantInt(I64, 0), "search.missing"), IRBuilder.const_null(), found,
                      "search.result")
    call.replace_all_uses_with(result)
    call.erase()


def _search_index(module: Module) -> Function:
    """`i64 __enzc_search_index(ptr key, ptr base, i64 n, i64 size, ptr cmp)`: the
    index of the element bsearch finds, -1 for none (inactive)."""
    fn, fresh = define_helper(module, SEARCH_INDEX, FunctionType(I64, (PTR, PTR, I64, I64, PTR)),
                              ("key", "base", "n", "size", "cmp"), attrs=("noinline", "nounwind", INACTIVE_ATTR))
    if not fresh:
        return fn
    key, base, n, size, cmp = fn.args
    b = IRBuilder(new_block(fn, "entry"))
    found = b.call(declare(module, "bsearch"), [key, base, n, size, cmp], "found")
    offset = b.sub(b.ptrtoint(found, I64, "at"), b.ptrtoint(base, I64, "start"), "offset")
    index = b.udiv(offset, size, "index")
    b.ret(b.select(b.icmp("eq", found, IRBuilder.const_null(), "missing"), ConstantInt(I64, -1), index, "result"))
    return fn


def _wide(b: IRBuilder, v: Value) -> Value:
    return v if v.type == I64 else b.zext(v, I64, "sort.n")


def _sort_indices(module: Module) -> Function:
    """`void __enzc_sort_indices(ptr idx, i64 n, ptr base, i64 size, ptr cmp, ptr arg,
    i1 has_arg)`: idx = 0..n-1 sorted by cmp on the elements they index (inactive)."""
    fn, fresh = define_helper(module, SORT_INDICES, FunctionType(VOID, (PTR, I64, PTR, I64, PTR, PTR, I1)),
                              ("idx", "n", "base", "size", "cmp", "arg", "has_arg"),
                              attrs=("noinline", "nounwind", INACTIVE_ATTR))
    if not fresh:
        return fn
    idx, n, base, size, cmp, arg, has_arg = fn.args
    entry, fill, sort = new_block(fn, "entry"), new_block(fn, "fill"), new_block(fn, "sort")
    b = IRBuilder(entry)
    context = b.alloca(_CONTEXT, name="context")
    for k, value in enumerate((base, size, cmp, arg, has_arg)):
        b.store(value, b.gep(_CONTEXT, context, [0, k], f"context.{k}"))
    b.cond_br(b.icmp("eq", n, ConstantInt(I64, 0), "empty"), sort, fill)
    b.position_at_end(fill)
    i = b.phi(I64, [(ConstantInt(I64, 0), entry)], "i")
    b.store(i, b.gep(I64, idx, [i], "at"))
    nxt = b.add(i, ConstantInt(I64, 1), "next")
    i.add_incoming(nxt, fill)
    b.cond_br(b.icmp("ult", nxt, n, "more"), fill, sort)
    b.position_at_end(sort)
    b.call(declare(module, "qsort_r"), [idx, n, ConstantInt(I64, 8), _compare_indices(module), context])
    b.ret_void()
    return fn


def _compare_indices(module: Module) -> Function:
    """`i32 __enzc_compare_indices(ptr a, ptr b, ptr context)`: the user's comparator
    on the elements indexed by *a and *b; equal ones in index order."""
    fn, fresh = define_helper(module, COMPARE_INDICES, FunctionType(I32, (PTR, PTR, PTR)),
                              ("a", "b", "context"), attrs=("nounwind",))
    if not fresh:
        return fn
    a, c, context = fn.args
    entry, with_arg, without_arg, tie = (new_block(fn, name) for name in ("entry", "with_arg", "without_arg", "tie"))
    b = IRBuilder(entry)
    fields = [b.load(t, b.gep(_CONTEXT, context, [0, k], f"field.{k}"), f"field.{k}")
              for k, t in enumerate((PTR, I64, PTR, PTR, I1))]
    base, size, cmp, arg, has_arg = fields
    i, j = b.load(I64, a, "i"), b.load(I64, c, "j")
    x = b.gep(I8, base, [b.mul(i, size, "x.at")], "x")
    y = b.gep(I8, base, [b.mul(j, size, "y.at")], "y")
    b.cond_br(has_arg, with_arg, without_arg)
    b.position_at_end(with_arg)
    r3 = b.call(cmp, [x, y, arg], "r", fn_type=FunctionType(I32, (PTR, PTR, PTR)))
    b.br(tie)
    b.position_at_end(without_arg)
    r2 = b.call(cmp, [x, y], "r", fn_type=FunctionType(I32, (PTR, PTR)))
    b.br(tie)
    b.position_at_end(tie)
    r = b.phi(I32, [(r3, with_arg), (r2, without_arg)], "r")
    by_index = b.sub(b.zext(b.icmp("ugt", i, j, "after"), I32, "gt"), b.zext(b.icmp("ult", i, j, "before"), I32, "lt"),
                     "by_index")
    b.ret(b.select(b.icmp("eq", r, ConstantInt(I32, 0), "equal"), by_index, r, "order"))
    return fn
