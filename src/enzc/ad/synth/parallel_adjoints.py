"""Adjoints in code a team runs: atomic where threads may meet, and atomic updates.

The forward pass of a race-free parallel region may read one location from many
threads at once (a stencil's neighbours, a shared coefficient); in the reverse
pass each of those reads becomes `shadow += adjoint`, and two threads doing that
at once lose one of the additions. In a derivative made with `Signature.parallel`
the reverse of a load therefore adds atomically (`atomicrmw fadd`), except:

- memory that is the thread's own (an alloca or heap block of this call): plain add;
- a location only one iteration of the work-sharing loop addresses (`x[i]`,
  `x[i * n + j]`: `analysis.omp_disjoint`): plain add, no other thread touches it;
- an address invariant in the function (`p[2]`, a shared coefficient) that nothing
  in it writes: the adjoints go into a thread-private sum (`private_adjoints`,
  zeroed where the reverse starts like any adjoint slot) added to the shadow with
  one atomic add when the thread's reverse ends (`flush_private_adjoints`).
  Every iteration of every thread adding atomically into the same cache line is
  what kept parallel gradients from scaling.

Stores need nothing: their reverse reads and clears the shadow, and two threads
storing to one location in the same interval between barriers would be a race in
the original program already.

`#pragma omp atomic` updates (`atomicrmw fadd/fsub`) are differentiated here too:
`*p += v` leaves `p`'s adjoint as it is and adds it to `v`'s; a used result (the
old value) adds its adjoint to `p`'s shadow, atomically.
"""

from __future__ import annotations

from enzc.ir.builder import IRBuilder
from enzc.ir.instructions import Alloca, AtomicRMW, GetElementPtr, Instruction, Load
from enzc.ir.types import FloatType, Type, VectorType
from enzc.ir.values import Value

from enzc.ad.analysis.activity import carries_float, float_leaves
from enzc.ad.analysis.memory_facts import is_fresh_allocation, underlying_objects
from enzc.ad.analysis.omp_disjoint import IterationDisjoint, invariant_address
from enzc.ad.analysis.runtime_activity import checked_write, masked_read
from enzc.ad.synth.adjoint_zero import adjoint_zero
from enzc.ad.synth.gradient_utils import GradientUtils

ATOMIC_FLOAT_OPERATIONS = ("fadd", "fsub")
"""Atomic updates of floating-point memory that have a derivative here."""


def thread_private(ptr: Value) -> bool:
    """Whether `ptr` points only into memory of this call (its allocas and heap blocks)."""
    objs = underlying_objects(ptr)
    return all(isinstance(o, Alloca) or is_fresh_allocation(o) for o in objs)


def needs_atomic(gu: GradientUtils, load: Instruction) -> bool:
    """Whether the reverse of `load` (original) must add into its shadow atomically."""
    if not gu.parallel or thread_private(load.operand(0)):
        return False
    assert isinstance(load, Load)
    return not _disjoint(gu).disjoint(load)


def _disjoint(gu: GradientUtils) -> IterationDisjoint:
    if gu.iteration_disjoint is None:
        gu.iteration_disjoint = IterationDisjoint(gu.original, gu.loops, gu.memory.objects_may_alias, gu.layout)
    return gu.iteration_disjoint  # type: ignore[return-value]


def accumulate_shadow(gu: GradientUtils, load: Instruction, shadow: Value, ty: Type, delta: Value,
                      align: int | None, private: bool = True) -> None:
    """`*shadow += delta` for the reverse of `load`, atomic where threads may meet
    (`private`: through a per-thread sum when the address allows, see below)."""
    if not needs_atomic(gu, load):
        gu.accumulate(shadow, ty, delta, align)
    elif private and _privately_summed(gu, load, ty):
        gu.accumulate(private_sum(gu, load.operand(0), ty), ty, delta)
    else:
        atomic_accumulate(gu, shadow, ty, delta, align)


def _privately_summed(gu: GradientUtils, load: Instruction, ty: Type) -> bool:
    """An invariant address nothing in the function writes (so no reverse code reads
    its shadow before the flush), of a float type."""
    assert isinstance(load, Load)
    return isinstance(ty, FloatType) and invariant_address(load.ptr) and not gu.memory.written_anywhere(load.ptr)


def private_sum(gu: GradientUtils, ptr: Value, ty: Type) -> Alloca:
    """The thread's running sum of the adjoints of loads from `ptr` (zeroed at entry)."""
    key = (ptr, ty)
    slot = gu.private_adjoints.get(key)
    if slot is None:
        b = IRBuilder(gu.new.entry)
        with b.goto_entry_allocas():
            slot = b.alloca(ty, name="d.private")  # type: ignore[assignment]
            b.store(adjoint_zero(ty), slot)
        gu.private_adjoints[key] = slot  # type: ignore[assignment]
    return slot  # type: ignore[return-value]


def flush_private_adjoints(gu: GradientUtils) -> None:
    """At the end of the reverse (builder in its exit block): each private sum is
    added to its shadow with one atomic add."""
    b = gu.b
    for (ptr, ty), slot in gu.private_adjoints.items():
        total = b.load(ty, slot, "d.private.sum")
        atomic_accumulate(gu, _invariant_shadow(gu, ptr), ty, total, None)


def _invariant_shadow(gu: GradientUtils, ptr: Value) -> Value:
    """The shadow of invariant address `ptr` rebuilt at the builder (the original
    `gep` may sit in a loop, out of reach at the exit)."""
    if isinstance(ptr, GetElementPtr):
        base = _invariant_shadow(gu, ptr.ptr)
        return gu.b.gep(ptr.source_type, base, list(ptr.indices), "d.private.addr", inbounds=True)
    return gu.lookup(gu.shadow(ptr))


def atomic_accumulate(gu: GradientUtils, ptr: Value, ty: Type, delta: Value, align: int | None) -> None:
    """`*ptr += delta` with one `atomicrmw fadd` per floating scalar."""
    b = gu.b
    if isinstance(ty, FloatType):
        b.atomic_rmw("fadd", ptr, delta, "monotonic", align=align)
        return
    if isinstance(ty, VectorType):
        for k in range(ty.count):
            lane = b.gep(ty.element, ptr, [k], "acc.lane")
            elem_align = None if align is None else min(align, gu.layout.abi_align(ty.element))
            b.atomic_rmw("fadd", lane, b.extract_element(delta, k, "acc.part"), "monotonic", align=elem_align)
        return
    for path, leaf in float_leaves(ty):
        part = b.extract_value(delta, list(path), "acc.part")
        addr = b.gep(ty, ptr, [0, *path], "acc.addr", inbounds=True)
        atomic_accumulate(gu, addr, leaf, part, None if align is None else 1)


# -- atomic updates ---------------------------------------------------------------------------


def check_atomic_forward(gu: GradientUtils, inst: AtomicRMW) -> None:
    """An atomic update that moves derivatives must be one this module differentiates."""
    act = gu.activity
    if not carries_float(inst.value.type):
        if act.has_shadow(inst.ptr) and act.has_shadow(inst.value):
            raise gu.error(inst, "cannot differentiate an atomic exchange of pointers into differentiable memory",
                           "exchange the pointers under a lock (#pragma omp critical)")
        return
    if not (inst.value in act.varied or act.has_shadow(inst.ptr)):
        return
    if inst.operation not in ATOMIC_FLOAT_OPERATIONS:
        raise gu.error(inst, f"cannot differentiate the atomic '{inst.operation}' of a floating-point value",
                       "use an atomic add or subtract, or a critical section")
    if not act.has_shadow(inst.ptr):
        raise gu.error(inst, "an active value is added atomically to memory the AD cannot shadow",
                       "pass that memory as an argument with enzyme_dup")


def reverse_atomic(gu: GradientUtils, inst: Instruction) -> None:
    """`old = *p; *p = old +/- v` backwards: `d_v +/-= *d_p`, then `*d_p += d_old`."""
    assert isinstance(inst, AtomicRMW)
    check_atomic_forward(gu, inst)
    if not gu.activity.has_shadow(inst.ptr) or not carries_float(inst.type):
        return
    b = gu.b
    shadow = gu.lookup(gu.shadow(inst.ptr))
    shadow, inactive = checked_write(gu, b, shadow, inst.ptr, inst.type, reverse=True)
    if gu.has_adjoint(inst.value):
        seen = masked_read(b, inactive, b.load(inst.type, shadow, "d.atomic", align=inst.align))
        gu.add_adjoint(inst.value, seen if inst.operation == "fadd" else b.fneg(seen, "d.neg"))
    if gu.has_adjoint(inst):
        d_old = gu.take_adjoint(inst)
        if gu.parallel and not thread_private(inst.ptr):
            atomic_accumulate(gu, shadow, inst.type, d_old, inst.align)
        else:
            gu.accumulate(shadow, inst.type, d_old, inst.align)
