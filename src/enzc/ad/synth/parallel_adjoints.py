"""Adjoints in code a team runs: atomic where threads may meet, and atomic updates.

The forward pass of a race-free parallel region may read one location from many
threads at once (a stencil's neighbours, a shared coefficient); in the reverse
pass each of those reads becomes `shadow += adjoint`, and two threads doing that
at once lose one of the additions. In a derivative made with `Signature.parallel`
the reverse of a load therefore adds atomically (`atomicrmw fadd`), except:

- memory that is the thread's own (an alloca or heap block of this call): plain add;
- a location only one iteration of the work-sharing loop addresses (`x[i]`,
  `x[i * n + j]`: `analysis.omp_disjoint`): plain add, no other thread touches it;
- a location only iterations at most `w` apart address (stencil neighbours
  `x[i-1]`, `x[i+1]`, periodic rows `u[((i+1) % N) * N + j]`: `omp_disjoint.Halo`):
  iteration `k` of a run of the loop (one thread's chunk, `last` its final
  iteration number, stored where the reverse enters the loop) adds plainly when
  `w <= k <= last - w` (all its sharers are in the same chunk), atomically otherwise;
  when the object is reached through several arguments (`u = work`, `v = work + N*N`
  passed separately), also only if their regions do not overlap at run time;
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

from enzc.ir.builder import IRBuilder, new_block
from enzc.ir.instructions import Alloca, AtomicRMW, GetElementPtr, Instruction, Load
from enzc.ir.loops import Loop
from enzc.ir.types import I64, FloatType, Type, VectorType
from enzc.ir.values import ConstantInt, Value

from enzc.ad.analysis.activity import carries_float, float_leaves
from enzc.ad.analysis.memory_facts import is_fresh_allocation, underlying_objects
from enzc.ad.analysis.omp_disjoint import Halo, IterationDisjoint, invariant_address
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
    elif (halo := _disjoint(gu).halo(load)) is not None:  # type: ignore[arg-type]
        _accumulate_unless_at_run_end(gu, halo, shadow, ty, delta, align)
    else:
        atomic_accumulate(gu, shadow, ty, delta, align)


def _accumulate_unless_at_run_end(gu: GradientUtils, halo: Halo, shadow: Value, ty: Type, delta: Value,
                                  align: int | None) -> None:
    """`*shadow += delta`: plainly in iterations `halo.width <= k <= last - halo.width`
    of the current run of `halo.loop` (and when `halo.regions` are apart), atomically
    otherwise. Leaves the builder in the block where both paths meet."""
    b = gu.b
    inner = _regions_apart(gu, halo.regions) if halo.regions else None
    if halo.width > 0:
        assert halo.loop is not None
        k = gu.reverse_counter(halo.loop)
        last = b.load(I64, run_end_slot(gu, halo.loop), "run.last")
        width = ConstantInt(I64, halo.width)
        in_run = b.and_(b.icmp("sge", k, width, "past.first"),
                        b.icmp("sle", k, b.sub(last, width, "run.inner.end"), "before.last"), "run.inner")
        inner = in_run if inner is None else b.and_(inner, in_run, "halo.plain")
    assert inner is not None
    plain, edge, done = (new_block(gu.new, n) for n in ("d.halo.inner", "d.halo.edge", "d.halo.done"))
    b.cond_br(inner, plain, edge)
    b.position_at_end(plain)
    gu.accumulate(shadow, ty, delta, align)
    b.br(done)
    b.position_at_end(edge)
    atomic_accumulate(gu, shadow, ty, delta, align)
    b.br(done)
    b.position_at_end(done)


def _regions_apart(gu: GradientUtils, regions: tuple[tuple[Value, int, int], ...]) -> Value:
    """Whether no two of the byte ranges `[base + lo, base + hi)` overlap (i1)."""
    b = gu.b
    ends = []
    for base, lo, hi in regions:
        at = b.ptrtoint(gu.lookup(gu.new_value(base)), I64, "region.base")
        ends.append((b.add(at, ConstantInt(I64, lo), "region.lo"), b.add(at, ConstantInt(I64, hi), "region.hi")))
    apart: Value | None = None
    for n, (lo1, hi1) in enumerate(ends):
        for lo2, hi2 in ends[n + 1:]:
            pair = b.or_(b.icmp("ule", hi1, lo2, "region.below"), b.icmp("ule", hi2, lo1, "region.above"),
                         "region.apart")
            apart = pair if apart is None else b.and_(apart, pair, "regions.apart")
    assert apart is not None
    return apart


def run_end_slot(gu: GradientUtils, loop: Loop) -> Alloca:
    """The slot holding the last iteration number of `loop`'s current run (-1 until
    the reverse enters a run)."""
    slot = gu.run_ends.get(loop)
    if slot is None:
        b = IRBuilder(gu.new.entry)
        with b.goto_entry_allocas():
            slot = b.alloca(I64, name="run.last.slot")  # type: ignore[assignment]
            b.store(ConstantInt(I64, -1), slot)  # no run recorded: every add stays atomic
        gu.run_ends[loop] = slot  # type: ignore[assignment]
    return slot  # type: ignore[return-value]


def record_run_end(gu: GradientUtils, loop: Loop, last: Value) -> None:
    """Where the reverse enters `loop` (builder there): keep `last` for the halo tests
    of a work-sharing loop's iterations."""
    if gu.parallel and any(p in _disjoint(gu).ivs for p in loop.header.phis):
        gu.b.store(last, run_end_slot(gu, loop))


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
