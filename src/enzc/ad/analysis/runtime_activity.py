"""Enzyme's runtime activity: shadow memory that may be the primal memory itself.

With `enzyme_runtime_activity` (or `--enzc-runtime-activity`) a pointer whose
memory the AD does not track (an `enzyme_const` array chosen beside an active one,
a `const` pointer stored in a struct next to active ones) gets its primal as its
shadow, and a caller may say "inactive" the same way: `enzyme_dup, x, x`, or a
shadow struct holding the primal pointer. Every access to shadow memory then
compares the shadow with its primal at run time:

    read  (a tangent, a store's adjoint)   select(shadow == primal, 0, *shadow)
    write (a tangent, an adjoint, a shadow pointer)
                                           *select(shadow == primal, scratch, shadow)
    memset/memcpy of shadow bytes          length select(shadow == primal, 0, n)

Reading through a shadow equal to its primal reads the primal's own memory, which
the original instruction reads or writes too; writes go to a scratch slot of this
derivative that nothing reads unmasked. No branch is added, so the reverse pass's
block structure is untouched; LLVM folds the comparison away where the shadow is
a fresh allocation (a shadow alloca or malloc never equals its primal).
"""

from __future__ import annotations

from enzc.ir.builder import IRBuilder
from enzc.ir.types import Type
from enzc.ir.values import ConstantInt, Value

from enzc.ad.analysis.gradient_state import GradientState

SCRATCH_ALIGN = 16


def inactive_at_run_time(gu: GradientState, b: IRBuilder, shadow: Value, ptr: Value,
                         reverse: bool = False) -> Value | None:
    """`shadow == ptr` at `b`'s position, `shadow` being the shadow of original pointer
    `ptr` valid there (`reverse`: in the reverse pass, where `ptr` is looked up), or
    None (and no code) when the derivative is not built with runtime activity."""
    if not gu.runtime_activity:
        return None
    primal = gu.new_value(ptr)
    return b.icmp("eq", shadow, gu.lookup(primal) if reverse else primal, "rt.inactive")


def write_target(gu: GradientState, b: IRBuilder, inactive: Value | None, shadow: Value, ty: Type) -> Value:
    """Where a write of a `ty` into `shadow` goes: the shadow, or this derivative's
    scratch slot when the shadow is the primal (`inactive`)."""
    if inactive is None:
        return shadow
    return b.select(inactive, scratch(gu, ty), shadow, "rt.target")


def checked_write(gu: GradientState, b: IRBuilder, shadow: Value, ptr: Value, ty: Type,
                  reverse: bool = False) -> tuple[Value, Value | None]:
    """`write_target` of `ptr`'s shadow for a `ty`, and the run-time flag it checked."""
    inactive = inactive_at_run_time(gu, b, shadow, ptr, reverse)
    return write_target(gu, b, inactive, shadow, ty), inactive


def masked_read(b: IRBuilder, inactive: Value | None, value: Value) -> Value:
    """`value` read from shadow memory, or zero when that memory is the primal's."""
    if inactive is None:
        return value
    return b.select(inactive, b.const_zero(value.type), value, "rt.read")


def masked_length(b: IRBuilder, inactive: Value | None, n: Value) -> Value:
    """A byte count of a shadow memset/memcpy: 0 when the shadow is the primal."""
    if inactive is None:
        return n
    return b.select(inactive, ConstantInt(n.type, 0), n, "rt.len")


def either(b: IRBuilder, first: Value | None, second: Value | None) -> Value | None:
    """`first or second` of two run-time flags, either possibly absent."""
    if first is None or second is None:
        return first if second is None else second
    return b.or_(first, second, "rt.either")


def scratch(gu: GradientState, ty: Type) -> Value:
    """An entry-block slot of type `ty` that writes through inactive shadows go to."""
    slots = gu.runtime_scratch
    slot = slots.get(ty)
    if slot is None:
        b = IRBuilder(gu.new.entry)
        with b.goto_entry_allocas():
            slot = b.alloca(ty, name="rt.scratch", align=SCRATCH_ALIGN)
        slots[ty] = slot
    return slot

