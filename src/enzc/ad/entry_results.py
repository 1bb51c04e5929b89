"""What an entry-point call returns: the derivative's values laid out as the C
struct of their types, in the caller's `sret` memory or reloaded as whatever type
the call is declared to return (`double`, `{double, double}`, `<2 x float>`, an
array of N adjoints for `enzyme_width` N...)."""

from __future__ import annotations

from enzc.ir.builder import IRBuilder
from enzc.ir.datalayout import DataLayout
from enzc.ir.types import I8, ArrayType, FloatType, Type
from enzc.ir.values import Value


def layout_offsets(layout: DataLayout, outs: list[Type]) -> list[int]:
    """Byte offset of each value in the C struct of `outs`."""
    offsets, pos = [], 0
    for t in outs:
        align = layout.abi_align(t)
        pos = (pos + align - 1) // align * align
        offsets.append(pos)
        pos += layout.alloc_size_of(t)
    return offsets


def store_struct(b: IRBuilder, layout: DataLayout, outs: list[Type], result: Value, dest: Value) -> None:
    """Store `result` (the values `outs`, a struct of them when several) at `dest` as their C struct."""
    for k, (t, off) in enumerate(zip(outs, layout_offsets(layout, outs))):
        v = result if len(outs) == 1 else b.extract_value(result, k, "out")
        addr = b.gep(I8, dest, [off], "out.addr", inbounds=True) if off else dest
        b.store(v, addr)


def coerce(b: IRBuilder, layout: DataLayout, outs: list[Type], result: Value, want: Type) -> Value:
    """`result` (the values `outs`) as a value of type `want`, through a stack slot."""
    if not outs:
        return b.const_zero(want)
    if len(outs) == 1 and outs[0] == want:
        return result
    if len(outs) == 1 and isinstance(want, FloatType) and isinstance(outs[0], FloatType):
        return b.fpext(result, want, "grad") if want.bits > outs[0].bits else b.fptrunc(result, want, "grad")
    size = max(layout.alloc_size_of(want), sum(layout.alloc_size_of(t) for t in outs) + 16)
    with b.goto_entry_allocas():
        slot = b.alloca(ArrayType(size, I8), name="grad.slot", align=16)
    b.store(b.const_zero(ArrayType(size, I8)), slot)
    store_struct(b, layout, outs, result, slot)
    return b.load(want, slot, "grad.ret")
