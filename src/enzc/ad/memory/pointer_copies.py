"""Shadow pointers moved by `memcpy`/`memmove` in the forward pass.

A store of an active pointer also stores its shadow into shadow memory, so that
later loads of the pointer find their shadow there. A memory copy moves pointers
too — C++ copies iterators and small objects with `llvm.memcpy` when they are
not promoted to registers — so the forward pass copies the shadow bytes of the
copied pointers along. Floating-point bytes are not copied forward: their shadow
holds adjoints, which move in the reverse pass (`memtypes`); copying them ahead
would count a caller's initial shadow values twice.
"""

from __future__ import annotations

from enzc.ir.builder import IRBuilder
from enzc.ir.instructions import CallBase
from enzc.ir.libc import declare
from enzc.ir.types import I1, I8, I64, PTR
from enzc.ir.values import ConstantInt, Value

from enzc.ad.analysis.calls import is_memory_copy
from enzc.ad.analysis.gradient_state import GradientState
from enzc.ad.analysis.runtime_activity import inactive_at_run_time, masked_length
from enzc.ad.memory.memtypes import copy_layout, element_loop
from enzc.ad.typeanalysis.typetree import Kind


def copy_pointer_shadows(gu: GradientState, call: CallBase) -> None:
    """After forward copy `call` (original) between shadowed buffers, copy the
    shadows of the pointers it moved; other calls are left alone."""
    if not is_memory_copy(call):
        return
    dst, src = call.args[0], call.args[1]
    if not (gu.activity.has_shadow(dst) and gu.activity.has_shadow(src)):
        return
    layout = copy_layout(gu, call)
    pointers = [s for s in layout.segments if s.type.kind is Kind.POINTER]
    if not pointers:
        return
    d_dst, d_src = gu.shadow(dst), gu.shadow(src)
    b = IRBuilder()
    b.position_after(gu.new_value(call))  # type: ignore[arg-type]
    inactive = inactive_at_run_time(gu, b, d_dst, dst)  # runtime activity: not into the primal
    n = _bytes(b, gu.new_value(call.args[2]))
    if not layout.float_segments():
        _move(gu, b, d_dst, d_src, masked_length(b, inactive, n))  # nothing in it accumulates
        return
    if layout.period is not None:  # records, each with its pointers among floats
        reps = masked_length(b, inactive, b.udiv(n, ConstantInt(I64, layout.period), "n.records"))
        for seg in pointers:
            offset = ConstantInt(I64, seg.offset)
            b.call(element_loop(gu, PTR, "move"), [
                b.gep(I8, d_dst, [offset], "ptr.shadow.dst"), b.gep(I8, d_src, [offset], "ptr.shadow.src"),
                reps, ConstantInt(I64, seg.size // gu.layout.alloc_size_of(PTR)), ConstantInt(I64, layout.period)])
        return
    for seg in pointers:
        offset = ConstantInt(I64, seg.offset)
        size: Value = ConstantInt(I64, seg.size)
        if layout.bounded:  # the bytes of the segment a run-time length reaches
            reached = b.select(b.icmp("ugt", n, offset, "reaches"), b.sub(n, offset, "avail"), ConstantInt(I64, 0))
            size = b.select(b.icmp("ult", reached, size, "short"), reached, size, "ptr.bytes")
        _move(gu, b, b.gep(I8, d_dst, [offset], "ptr.shadow.dst"), b.gep(I8, d_src, [offset], "ptr.shadow.src"),
              masked_length(b, inactive, size))


def _bytes(b: IRBuilder, n: Value) -> Value:
    return n if n.type == I64 else b.zext(n, I64, "n")


def _move(gu: GradientState, b: IRBuilder, dst: Value, src: Value, n: Value) -> None:
    b.call(declare(gu.module, "llvm.memmove.p0.p0.i64"), [dst, src, n, ConstantInt(I1, 0)])
