"""Heap memory in derivatives: shadow allocations, their frees, and `realloc`.

An allocation (`malloc`, `calloc`, `realloc`, C++ `new`) whose memory holds active
data gets a *shadow allocation* in the forward pass, right after the primal one:
zero-filled (every usable byte, so a later shadow `realloc` may copy whole
blocks), made by `malloc` whatever the primal allocator was. The primal free
stays where it is: the reverse pass never reads primal memory after a release
(`free` clobbers it for recomputation, so such values are cached). The shadow is
freed in the reverse pass at the reverse of its allocation, which comes after
every reverse use of it; a shadow whose primal may outlive the call (returned,
stored into the caller's memory, handed to an unknown function) is not freed:
the caller owns it through the shadow structure it passed.

`realloc(p, n)` moves data: its shadow is a fresh zeroed block holding a copy of
the old shadow (pointers stored in the forward pass), and the old shadow stays
alive for the reverse pass. Its reverse adds the adjoints of the moved elements
back to the old block (`d_old += d_new` over the bytes that were moved) before
freeing the new shadow.
"""

from __future__ import annotations

from enzc.ir.builder import IRBuilder, get_or_insert_function, new_block
from enzc.ir.instructions import CallBase, Instruction, Invoke
from enzc.ir.module import Function, Module
from enzc.ir.types import I1, I8, I64, PTR, VOID, FunctionType, IntType
from enzc.ir.values import ConstantInt, Value

from enzc.ad.analysis.gradient_state import GradientState
from enzc.ad.analysis.allocations import Allocator, allocator_of, may_escape
from enzc.ad.memory.memtypes import copy_adjoint_by_bytes


SHADOW_ALLOC = "__enzc_shadow_alloc"
SHADOW_ALLOC_ALIGNED = "__enzc_shadow_alloc_aligned"
SHADOW_REALLOC = "__enzc_shadow_realloc"


# -- forward: shadow allocations -----------------------------------------------------------------


def shadow_allocation(gu: GradientState, orig: CallBase, new: Instruction, name: str) -> Value:
    """Emit the shadow of allocation `orig` (forward clone `new`) right after it."""
    alloc = allocator_of(orig)
    assert alloc is not None
    b = IRBuilder()
    if isinstance(new, Invoke):  # C++ `new` with cleanups to run if it throws
        normal = new.normal_dest
        if len(normal.predecessors) != 1:
            raise gu.error(orig, "cannot place the shadow of an allocation whose normal successor is reached "
                                 "from elsewhere too", "compile with -fno-exceptions")
        b.position_after_phis(normal)
    else:
        b.position_after(new)
    if alloc.align_arg is not None:
        align = _byte_count(b, [gu.new_value(orig.args[alloc.align_arg])])
        size = _byte_count(b, _sizes(gu, orig, alloc))
        return b.call(_shadow_alloc_aligned_helper(gu.module), [align, size], name)
    if alloc.moves_from is None:
        return b.call(_shadow_alloc_helper(gu.module), [_byte_count(b, _sizes(gu, orig, alloc))], name)
    old = gu.shadow(orig.args[alloc.moves_from])
    made = gu.shadows.get(orig)
    if made is not None:
        return made  # `old` is a loop phi whose shadow needed this one first: one shadow block only
    return b.call(_shadow_realloc_helper(gu.module), [old, _byte_count(b, _sizes(gu, orig, alloc))], name)


def _sizes(gu: GradientState, orig: CallBase, alloc: Allocator) -> list[Value]:
    return [gu.new_value(orig.args[i]) for i in alloc.size_args]


def _byte_count(b: IRBuilder, parts: list[Value]) -> Value:
    total: Value | None = None
    for p in parts:
        if p.type != I64:
            assert isinstance(p.type, IntType)
            p = b.zext(p, I64, "size") if p.type.bits < 64 else b.trunc(p, I64, "size")
        total = p if total is None else b.mul(total, p, "size")
    assert total is not None
    return total


def _usable_size(module: Module) -> Function:
    return get_or_insert_function(module, "malloc_usable_size", FunctionType(I64, (PTR,)))


def _malloc(module: Module) -> Function:
    return get_or_insert_function(module, "malloc", FunctionType(PTR, (I64,)))


def _free(module: Module) -> Function:
    return get_or_insert_function(module, "free", FunctionType(VOID, (PTR,)))


def _memset(module: Module) -> Function:
    return get_or_insert_function(module, "llvm.memset.p0.i64", FunctionType(VOID, (PTR, I8, I64, I1)))


def _memcpy(module: Module) -> Function:
    return get_or_insert_function(module, "llvm.memcpy.p0.p0.i64", FunctionType(VOID, (PTR, PTR, I64, I1)))


def _define(module: Module, name: str, ftype: FunctionType, arg_names: list[str]) -> tuple[Function, bool]:
    fn = module.get_function(name)
    if fn is not None:
        return fn, False
    fn = module.add_function(name, ftype, unique=False)
    fn.linkage.words = ["internal"]
    fn.fn_attrs = ("nounwind",)
    for a, n in zip(fn.args, arg_names):
        a.name = n
    fn.blocks = []
    return fn, True


def _shadow_alloc_helper(module: Module) -> Function:
    """`ptr __enzc_shadow_alloc(i64 n)`: malloc(n) with every usable byte zeroed."""
    fn, fresh = _define(module, SHADOW_ALLOC, FunctionType(PTR, (I64,)), ["n"])
    if not fresh:
        return fn
    b = IRBuilder(new_block(fn, "entry"))
    _return_zeroed(module, b, b.call(_malloc(module), [fn.args[0]], "p"))
    return fn


def _return_zeroed(module: Module, b: IRBuilder, p: Value) -> None:
    """Zero every usable byte of the fresh block `p` (if not null) and return it."""
    fn = b.block.parent  # type: ignore[union-attr]
    fill, done = new_block(fn, "fill"), new_block(fn, "done")  # type: ignore[arg-type]
    b.cond_br(b.icmp("eq", p, b.const_zero(PTR), "null"), done, fill)
    b.position_at_end(fill)
    usable = b.call(_usable_size(module), [p], "usable")
    b.call(_memset(module), [p, ConstantInt(I8, 0), usable, ConstantInt(I1, 0)])
    b.br(done)
    b.position_at_end(done)
    b.ret(p)


def _shadow_alloc_aligned_helper(module: Module) -> Function:
    """`ptr __enzc_shadow_alloc_aligned(i64 align, i64 n)`: `aligned_alloc` of n bytes
    rounded up to the alignment, every usable byte zeroed."""
    fn, fresh = _define(module, SHADOW_ALLOC_ALIGNED, FunctionType(PTR, (I64, I64)), ["align", "n"])
    if not fresh:
        return fn
    align, n = fn.args
    b = IRBuilder(new_block(fn, "entry"))
    mask = b.sub(align, ConstantInt(I64, 1), "mask")
    rounded = b.and_(b.add(n, mask, "up"), b.xor(mask, ConstantInt(I64, -1), "keep"), "rounded")
    aligned_alloc = get_or_insert_function(module, "aligned_alloc", FunctionType(PTR, (I64, I64)))
    _return_zeroed(module, b, b.call(aligned_alloc, [align, rounded], "p"))
    return fn


def _shadow_realloc_helper(module: Module) -> Function:
    """`ptr __enzc_shadow_realloc(ptr old, i64 n)`: a zeroed block of n bytes that
    starts with a copy of `old` (whose usable bytes are all defined); `old` stays
    allocated, the reverse pass still needs it."""
    fn, fresh = _define(module, SHADOW_REALLOC, FunctionType(PTR, (PTR, I64)), ["old", "n"])
    if not fresh:
        return fn
    old, n = fn.args
    entry, copy, done = new_block(fn, "entry"), new_block(fn, "copy"), new_block(fn, "done")
    b = IRBuilder(entry)
    p = b.call(_shadow_alloc_helper(module), [n], "p")
    has_both = b.and_(b.icmp("ne", p, b.const_zero(PTR), "ok"), b.icmp("ne", old, b.const_zero(PTR), "had"), "both")
    b.cond_br(has_both, copy, done)
    b.position_at_end(copy)
    usable = b.call(_usable_size(module), [old], "old.usable")
    moved = b.select(b.icmp("ult", usable, n, "shrink"), usable, n, "moved")
    b.call(_memcpy(module), [p, old, moved, ConstantInt(I1, 0)])
    b.br(done)
    b.position_at_end(done)
    b.ret(p)
    return fn


# -- reverse ----------------------------------------------------------------------------------------


def reverse_allocation(gu: GradientState, orig: CallBase) -> None:
    """The reverse of a shadowed allocation: move the adjoints a `realloc` moved
    back to the old block, then free the shadow unless it may escape."""
    alloc = allocator_of(orig)
    assert alloc is not None
    if alloc.moves_from is not None and gu.activity.has_shadow(orig.args[alloc.moves_from]):
        _reverse_moved_contents(gu, orig, alloc)
    if may_escape(orig):
        return
    gu.b.call(_free(gu.module), [gu.lookup(gu.shadow(orig))])


def _reverse_moved_contents(gu: GradientState, orig: CallBase, alloc: Allocator) -> None:
    b = gu.b
    old = gu.lookup(gu.shadow(orig.args[alloc.moves_from]))  # type: ignore[index]
    new = gu.lookup(gu.shadow(orig))
    n = _byte_count(b, [gu.lookup(gu.new_value(orig.args[i])) for i in alloc.size_args])
    usable = b.call(_usable_size(gu.module), [old], "old.usable")
    moved = b.select(b.icmp("ult", usable, n, "shrink"), usable, n, "moved")
    copy_adjoint_by_bytes(gu, orig, new, old, moved)
