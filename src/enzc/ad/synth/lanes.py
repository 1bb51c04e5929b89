"""Lanes: one derivative carrying `enzyme_width` N directions at once.

Forward values (the primal, caches, tapes, loop counters) exist once; every shadow
and every adjoint exists once per lane. `GradientUtils` keeps the current lane's
maps in `shadows` and `adjoint_slots`; entering another lane swaps them, so the
code that makes a shadow or accumulates an adjoint (the forward and reverse
visitors, the memory and rule code below them) runs unchanged once per lane:

    forward mode   each instruction's tangent code, once per lane (`forward`)
    reverse mode   each forward duty that makes shadows (pointer stores, copies of
                   shadows) and each active instruction's adjoint code, once per
                   lane (`combined`); a call to a defined function is one call
                   for every lane (`call_derivatives`), its derivative itself of
                   width N

What a derivative cannot run per lane (see `reject_vector_reverse`) is a
compile-time error at width N > 1.
"""

from __future__ import annotations

from collections.abc import Iterator

from enzc.ir.instructions import AtomicRMW, CallBase
from enzc.ir.values import Constant, Value

from enzc.ad.analysis.calls import CallKind, callee_name, classify
from enzc.ad.analysis.openmp import is_fork, is_sync
from enzc.ad.rules.table import has_rule
from enzc.ad.synth.gradient_utils import GradientUtils
from enzc.ad.synth.mpi_calls import is_mpi


def start_lanes(gu: GradientUtils, shadows: list[dict[Value, Value]]) -> None:
    """One lane per map of argument shadows; lane 0 becomes current. Shadows
    `gu` knew before are every lane's."""
    gu.width = len(shadows)
    gu.lane_maps = [({**gu.shadows, **s}, {}) for s in shadows]
    gu.lane = 0
    gu.shadows, gu.adjoint_slots = gu.lane_maps[0]


def enter_lane(gu: GradientUtils, k: int) -> None:
    """Make lane `k` current: `shadow`, `adjoint_slot` and their users see its maps."""
    gu.lane_maps[gu.lane] = (gu.shadows, gu.adjoint_slots)
    gu.lane = k
    gu.shadows, gu.adjoint_slots = gu.lane_maps[k]


def each_lane(gu: GradientUtils) -> Iterator[int]:
    """Enter every lane in turn (yielding its number), then lane 0 again."""
    try:
        for k in range(gu.width):
            enter_lane(gu, k)
            yield k
    finally:
        enter_lane(gu, 0)


def lane_shadows(gu: GradientUtils, v: Value) -> list[Value]:
    """The shadow of original pointer `v` in every lane (made where missing)."""
    return [gu.shadow(v) for _ in each_lane(gu)]


def reject_vector_reverse(gu: GradientUtils) -> None:
    """Stop, at the first instruction that needs it, what vector reverse mode does not
    differentiate: user gradients, OpenMP, MPI, atomics, and globals with a shadow of
    their own (one shadow, not N). (BLAS rules run once per lane, `blas_reverse`.)"""
    hint = "call __enzyme_autodiff once per direction instead of enzyme_width"
    for v in gu.activity.shadowed:
        if isinstance(v, Constant):
            user = next((i for i in gu.original.instructions() if v in i.operands), None)
            raise gu.error(user, f"the global '{getattr(v, 'name', '?')}' has one shadow, so enzyme_width cannot "
                           "give it several adjoints", hint)
    for inst in gu.original.instructions():
        if isinstance(inst, AtomicRMW) and gu.activity.is_active_instruction(inst):
            raise gu.error(inst, "reverse mode with enzyme_width does not differentiate atomic updates yet", hint)
        if not isinstance(inst, CallBase):
            continue
        if is_fork(inst) or is_sync(inst) or is_mpi(inst):
            raise gu.error(inst, "reverse mode with enzyme_width does not differentiate OpenMP regions or MPI "
                           "transfers yet", hint)
        if not gu.activity.is_active_instruction(inst):
            continue
        if classify(inst, has_rule) is CallKind.CUSTOM:
            raise gu.error(inst, "reverse mode with enzyme_width does not differentiate a call of a function with "
                           f"a user derivative ('{callee_name(inst) or '?'}') yet (its registered gradient takes "
                           "one shadow and one adjoint)", hint)
