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

from collections.abc import Callable
from dataclasses import dataclass

from enzc.ir.builder import IRBuilder, new_block
from enzc.ir.instructions import CallBase, Instruction, Invoke
from enzc.ir.libc import declare, define_helper
from enzc.ir.module import Function, Module
from enzc.ir.types import I1, I8, I64, PTR, FunctionType, IntType
from enzc.ir.values import ConstantInt, Value

from enzc.ad.analysis.allocations import Allocator, allocator_of, may_escape
from enzc.ad.analysis.gradient_state import GradientState
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
        size = _byte_count(b, _sizes(gu, orig, alloc, b))
        return b.call(_helper(gu.module, SHADOW_ALLOC_ALIGNED), [align, size], name)
    if alloc.moves_from is None:
        return b.call(_helper(gu.module, SHADOW_ALLOC), [_byte_count(b, _sizes(gu, orig, alloc, b))], name)
    if gu.runtime_activity:
        raise gu.error(orig, "cannot differentiate a reallocation with runtime activity (enzyme_runtime_activity): "
                             "the old block's shadow may be the block itself",
                       "allocate the new block with malloc and copy, or differentiate without runtime activity")
    old = gu.shadow(orig.args[alloc.moves_from])
    made = gu.shadows.get(orig)
    if made is not None:
        return made  # `old` is a loop phi whose shadow needed this one first: one shadow block only
    return b.call(_helper(gu.module, SHADOW_REALLOC), [old, _byte_count(b, _sizes(gu, orig, alloc, b))], name)


def _sizes(gu: GradientState, orig: CallBase, alloc: Allocator, b: IRBuilder) -> list[Value]:
    sizes = [gu.new_value(orig.args[i]) for i in alloc.size_args]
    if alloc.count_ref is not None:  # read after the call, which may have raised it
        count = b.load(I64, gu.new_value(orig.args[alloc.count_ref]), "count")
        sizes.append(b.add(count, ConstantInt(I64, 1), "count.bytes"))
    return sizes


def _byte_count(b: IRBuilder, parts: list[Value]) -> Value:
    total: Value | None = None
    for p in parts:
        if p.type != I64:
            assert isinstance(p.type, IntType)
            p = b.zext(p, I64, "size") if p.type.bits < 64 else b.trunc(p, I64, "size")
        total = p if total is None else b.mul(total, p, "size")
    assert total is not None
    return total


def _moved_bytes(b: IRBuilder, module: Module, old: Value, n: Value) -> Value:
    """How many bytes of block `old` a `realloc` to `n` bytes keeps."""
    usable = b.call(declare(module, "malloc_usable_size"), [old], "old.usable")
    return b.select(b.icmp("ult", usable, n, "shrink"), usable, n, "moved")


def _return_zeroed(module: Module, b: IRBuilder, p: Value) -> None:
    """Zero every usable byte of the fresh block `p` (if not null) and return it."""
    fn = b.block.parent  # type: ignore[union-attr]
    fill, done = new_block(fn, "fill"), new_block(fn, "done")  # type: ignore[arg-type]
    b.cond_br(b.icmp("eq", p, b.const_zero(PTR), "null"), done, fill)
    b.position_at_end(fill)
    usable = b.call(declare(module, "malloc_usable_size"), [p], "usable")
    b.call(declare(module, "llvm.memset.p0.i64"), [p, ConstantInt(I8, 0), usable, ConstantInt(I1, 0)])
    b.br(done)
    b.position_at_end(done)
    b.ret(p)


def _shadow_alloc_body(module: Module, fn: Function, b: IRBuilder) -> None:
    """`ptr __enzc_shadow_alloc(i64 n)`: malloc(n) with every usable byte zeroed."""
    _return_zeroed(module, b, b.call(declare(module, "malloc"), [fn.args[0]], "p"))


def _shadow_alloc_aligned_body(module: Module, fn: Function, b: IRBuilder) -> None:
    """`ptr __enzc_shadow_alloc_aligned(i64 align, i64 n)`: `aligned_alloc` of n bytes
    rounded up to the alignment, every usable byte zeroed."""
    align, n = fn.args
    mask = b.sub(align, ConstantInt(I64, 1), "mask")
    rounded = b.and_(b.add(n, mask, "up"), b.xor(mask, ConstantInt(I64, -1), "keep"), "rounded")
    _return_zeroed(module, b, b.call(declare(module, "aligned_alloc"), [align, rounded], "p"))


def _shadow_realloc_body(module: Module, fn: Function, b: IRBuilder) -> None:
    """`ptr __enzc_shadow_realloc(ptr old, i64 n)`: a zeroed block of n bytes that
    starts with a copy of `old` (whose usable bytes are all defined); `old` stays
    allocated, the reverse pass still needs it."""
    old, n = fn.args
    copy, done = new_block(fn, "copy"), new_block(fn, "done")
    p = b.call(_helper(module, SHADOW_ALLOC), [n], "p")
    has_both = b.and_(b.icmp("ne", p, b.const_zero(PTR), "ok"), b.icmp("ne", old, b.const_zero(PTR), "had"), "both")
    b.cond_br(has_both, copy, done)
    b.position_at_end(copy)
    moved = _moved_bytes(b, module, old, n)
    b.call(declare(module, "llvm.memcpy.p0.p0.i64"), [p, old, moved, ConstantInt(I1, 0)])
    b.br(done)
    b.position_at_end(done)
    b.ret(p)


@dataclass(frozen=True)
class _Helper:
    """A routine the shadows of heap blocks call, defined once per module."""

    type: FunctionType
    params: tuple[str, ...]
    body: Callable[[Module, Function, IRBuilder], None]
    """Fills the new function, given a builder at the end of its entry block."""


_HELPERS: dict[str, _Helper] = {
    SHADOW_ALLOC: _Helper(FunctionType(PTR, (I64,)), ("n",), _shadow_alloc_body),
    SHADOW_ALLOC_ALIGNED: _Helper(FunctionType(PTR, (I64, I64)), ("align", "n"), _shadow_alloc_aligned_body),
    SHADOW_REALLOC: _Helper(FunctionType(PTR, (PTR, I64)), ("old", "n"), _shadow_realloc_body),
}


def _helper(module: Module, name: str) -> Function:
    """The helper `name` of `module`, defined on first use."""
    spec = _HELPERS[name]
    fn, fresh = define_helper(module, name, spec.type, spec.params, attrs=("nounwind",))
    if fresh:
        spec.body(module, fn, IRBuilder(new_block(fn, "entry")))
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
    gu.b.call(declare(gu.module, "free"), [gu.lookup(gu.shadow(orig))])


def _reverse_moved_contents(gu: GradientState, orig: CallBase, alloc: Allocator) -> None:
    b = gu.b
    old = gu.lookup(gu.shadow(orig.args[alloc.moves_from]))  # type: ignore[index]
    new = gu.lookup(gu.shadow(orig))
    n = _byte_count(b, [gu.lookup(gu.new_value(orig.args[i])) for i in alloc.size_args])
    sizes = [orig.args[i] for i in alloc.size_args]
    copy_adjoint_by_bytes(gu, orig, sizes, new, old, _moved_bytes(b, gu.module, old, n))
