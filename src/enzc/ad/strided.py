"""`enzyme_dupv, stride, x, dx`: the shadows of every lane in one buffer.

With `enzyme_width` N, Enzyme's vector markers pass one shadow pointer for all N
lanes instead of N pointers: lane k's shadow is `dx + k * stride` bytes (the
stride a constant or a run-time integer). `enzyme_dupnoneedv` is the same for
`enzyme_dupnoneed`.
"""

from __future__ import annotations

from collections.abc import Callable

from enzc.ir.builder import IRBuilder
from enzc.ir.instructions import CallBase
from enzc.ir.types import I8, I64, IntType, PointerType, Type
from enzc.ir.values import ConstantInt, Value

STRIDED_MARKERS = ("enzyme_dupv", "enzyme_dupnoneedv")
"""The markers followed by a byte stride, then the argument and its one shadow."""


def stride_problem(stride: Value | None, ptype: Type,
                   marker_name: Callable[[Value], str | None]) -> tuple[str, str] | None:
    """(what is wrong, hint) when `stride` cannot be the byte stride of a strided
    marker before a parameter of type `ptype`; None when it can."""
    if stride is None or not isinstance(stride.type, IntType) or (marker_name(stride) or "").startswith("enzyme_"):
        return ("enzyme_dupv needs a byte stride (an integer) before the argument",
                "write enzyme_dupv, sizeof(double) * n, x, dx")
    if not isinstance(ptype, PointerType):
        return ("enzyme_dupv on a parameter that is not a pointer",
                "enzyme_dupv passes the shadows of a pointer, one buffer for every lane")
    return None


def strided_shadows(call: CallBase, shadow: Value, stride: Value, width: int) -> list[Value]:
    """The shadow of each lane, computed before `call`: `shadow + k * stride` bytes."""
    b = IRBuilder()
    b.position_before(call)
    assert isinstance(stride.type, IntType)
    if stride.type.bits != 64:
        stride = b.sext(stride, I64, "stride") if stride.type.bits < 64 else b.trunc(stride, I64, "stride")
    return [shadow if k == 0 else b.gep(I8, shadow, [b.mul(stride, ConstantInt(I64, k), "lane.off")], "lane.shadow")
            for k in range(width)]
