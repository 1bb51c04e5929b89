"""Record copies that SROA cut after their first bytes, joined again.

libstdc++ holds the value `vector::resize(n, value)` and `insert(pos, n, value)`
fill with in a union with an `unsigned char` (`_Temporary_value`), so SROA splits
the temporary at byte 1: a record of doubles is read as `load i8` of its first
byte plus a `memcpy` of the other 15 bytes into a `[15 x i8]` alloca, and each
element is written as `store i8` plus a `memcpy` of those 15 bytes:

    %b = load i8, ptr %src                        memcpy(%tmp16, %src, 16)
    memcpy(%tmp, %src + 1, 15)
    ...                                    ->
    store i8 %b, ptr %dst                         memcpy(%dst, %tmp16, 16)
    memcpy(%dst + 1, %tmp, 15)

A double moved as one byte and seven has no type and no derivative a float
addition can carry; joined, the copies move whole records. The rewrite is exact:
it applies only when nothing between a load and its copy (a store and its copy)
touches memory, the temporary is used by these copies alone, and every use of the
loaded bytes is a store followed by the copy of the rest.
"""

from __future__ import annotations

from enzc.ir.builder import IRBuilder
from enzc.ir.instructions import Alloca, CallBase, Cast, GetElementPtr, Instruction, Load, Store
from enzc.ir.libc import declare
from enzc.ir.module import Function, Module
from enzc.ir.types import I1, I8, I64, ArrayType, IntType
from enzc.ir.values import ConstantInt, Value

_MARKER_INTRINSICS = ("llvm.lifetime.", "llvm.dbg.")


def join_byte_split_copies(module: Module, fn: Function) -> int:
    """Join every such split copy in `fn`; returns how many temporaries were joined.
    Run before anything looks at `fn` (the rewrite erases instructions)."""
    if not fn.is_materialized and fn.source_text is not None and not _may_hold_split(fn.source_text):
        return 0  # left unparsed: most functions have no such copy
    joined = 0
    for inst in list(fn.instructions()):
        if isinstance(inst, Alloca) and inst.parent is not None and _join(module, inst):
            joined += 1
    return joined


def _may_hold_split(text: str) -> bool:
    return "x i8], align" in text and "@llvm.memcpy" in text


def _join(module: Module, tmp: Alloca) -> bool:
    size = _array_bytes(tmp)
    if size is None:
        return False
    fills, reads = [], []
    for use in tmp.uses:
        user = use.user
        if _is_marker(user):
            continue
        if not _is_memcpy(user) or _length(user) != size or user.args[0] is user.args[1]:
            return False
        (fills if user.args[0] is tmp else reads).append(user)
    if len(fills) != 1 or not reads:
        return False
    fill = fills[0]
    src, k = _byte_offset(fill.args[1])
    head = _head_load(fill, src, k)
    if head is None:
        return False
    pairs = [_paired_store(read, tmp, k) for read in reads]
    stores = [p for p in pairs if p is not None and p.value is head]
    if len(stores) != len(reads) or len(head.uses) != len(stores):
        return False  # the first bytes are used otherwise too
    b = IRBuilder()
    b.position_before(tmp)
    whole = b.alloca(ArrayType(size + k, I8), name=f"{tmp.name or 'tmp'}.joined", align=head.align)
    memcpy = declare(module, "llvm.memcpy.p0.p0.i64")
    length = ConstantInt(I64, size + k)
    b.position_before(fill)
    b.call(memcpy, [whole, src, length, ConstantInt(I1, 0)])
    for store, read in zip(stores, reads):
        b.position_before(store)
        b.call(memcpy, [store.ptr, whole, length, ConstantInt(I1, 0)])
    for old in [*reads, *stores, fill, head]:
        old.erase()
    for use in list(tmp.uses):
        use.user.erase()  # lifetime markers of the old temporary
    tmp.erase()
    return True


def _head_load(fill: CallBase, src: Value, k: int) -> Load | None:
    """The load of `src`'s first `k` bytes just before `fill` (only address
    arithmetic between), the copy of the bytes after them."""
    for inst in _before(fill):
        if isinstance(inst, Load):
            if inst.ptr is src and not inst.volatile and _int_bytes(inst.type) == k:
                return inst
        elif not _is_quiet(inst):
            return None
    return None


def _paired_store(read: CallBase, tmp: Alloca, k: int) -> Store | None:
    """The store of the first `k` bytes to where `read` copies the rest, just before it."""
    dst, offset = _byte_offset(read.args[0])
    if read.args[1] is not tmp or offset != k:
        return None
    for inst in _before(read):
        if isinstance(inst, Store):
            return inst if inst.ptr is dst and not inst.volatile else None
        if not _is_quiet(inst):
            return None
    return None


def _before(inst: Instruction) -> list[Instruction]:
    """The instructions before `inst` in its block, nearest first."""
    block = inst.parent
    assert block is not None
    return block.instructions[: block.index_of(inst)][::-1]


def _is_quiet(inst: Instruction) -> bool:
    """Touches no memory: address arithmetic, casts, lifetime and debug markers."""
    return isinstance(inst, (GetElementPtr, Cast)) or _is_marker(inst)


def _is_marker(inst: Instruction) -> bool:
    """A lifetime or debug marker call."""
    fn = inst.called_function if isinstance(inst, CallBase) else None
    return fn is not None and (fn.name or "").startswith(_MARKER_INTRINSICS)


def _is_memcpy(inst: Instruction) -> bool:
    fn = inst.called_function if isinstance(inst, CallBase) else None
    return fn is not None and (fn.name or "").startswith("llvm.memcpy.") and \
        isinstance(inst.args[3], ConstantInt) and inst.args[3].value == 0


def _length(call: CallBase) -> int | None:
    n = call.args[2]
    return n.value if isinstance(n, ConstantInt) else None


def _byte_offset(ptr: Value) -> tuple[Value, int]:
    """`(base, k)` for `getelementptr i8, base, k` with a constant k; else `(ptr, 0)`."""
    if isinstance(ptr, GetElementPtr) and ptr.source_type == I8 and len(ptr.indices) == 1 \
            and isinstance(ptr.indices[0], ConstantInt):
        return ptr.ptr, ptr.indices[0].value
    return ptr, 0


def _array_bytes(tmp: Alloca) -> int | None:
    t = tmp.allocated_type
    if tmp.count is None and isinstance(t, ArrayType) and t.element == I8:
        return t.count
    return None


def _int_bytes(t) -> int | None:
    return t.bits // 8 if isinstance(t, IntType) and t.bits % 8 == 0 else None
