"""The largest count of an inner loop over an outer loop's iterations
(`enzc.ad.analysis.tripcount_largest`), on two-loop IR nests with constant sizes,
where the formula folds to a constant: checked against the counts the nest runs,
simulated here. Sizing a cache too small would let the forward pass write past its
array, so every shape that is not affine in the outer iteration must give None.
Gradients of such nests: tests/ad/programs/rev2/tape/triangular_invariant.c."""

from __future__ import annotations

import operator

import pytest

from enzc.ad.analysis.tripcount import trip_count
from enzc.ad.analysis.tripcount_largest import largest_count
from enzc.ir import parse_module
from enzc.ir.builder import IRBuilder
from enzc.ir.dominators import DominatorTree
from enzc.ir.instructions import Instruction
from enzc.ir.loops import LoopInfo
from enzc.ir.values import ConstantInt, Value

OUTER = 7
NEST = """
define void @f(ptr %p) {
entry:
  br label %t.loop
t.loop:
  %t = phi i64 [ 0, %entry ], [ %t.next, %t.latch ]
  %b = phi TY [ BSTART, %entry ], [ %b.next, %t.latch ]
  %bound = BOUND
  %g = icmp GUARD
  br i1 %g, label %u.pre, label %t.latch
u.pre:
  br label %u.loop
u.loop:
  %u = phi TY [ 0, %u.pre ], [ %u.next, %u.loop ]
  %q = getelementptr double, ptr %p, TY %u
  store double 1.0, ptr %q
  %u.next = add TY %u, USTEP
  %c = icmp PRED TY %u.next, %bound
  br i1 %c, label %u.loop, label %t.latch
t.latch:
  %b.next = add TY %b, BSTEP
  %t.next = add i64 %t, 1
  %ct = icmp ne i64 %t.next, OUTER
  br i1 %ct, label %t.loop, label %exit
exit:
  ret void
}
""".replace("OUTER", str(OUTER))

PREDICATES = {"ne": operator.ne, "slt": operator.lt, "sle": operator.le}


def nest(bstart: int, bstep: int, offset: int, pred: str, guard: str = "true",
         ustep: int = 1, ty: str = "i64", bound: str | None = None) -> str:
    text = NEST.replace("BSTART", str(bstart)).replace("BSTEP", str(bstep)).replace("USTEP", str(ustep))
    text = text.replace("PRED", pred).replace("TY", ty)
    text = text.replace("BOUND", bound or f"add {ty} %b, {offset}")
    return text.replace("icmp GUARD", "icmp eq i1 true, true" if guard == "true" else f"icmp {guard}")


def largest(text: str, vary: bool = True) -> Value | None:
    fn = parse_module(text).functions["f"]
    dt = DominatorTree(fn)
    info = LoopInfo(fn, dt)
    outer = info.loops[0]
    inner = outer.subloops[0]
    pre = outer.preheader
    assert pre is not None

    def available(v: Value) -> bool:
        return not isinstance(v, Instruction) or dt.block_dominates(v.parent, pre)

    got = largest_count(inner, info, lambda L: trip_count(L, dt), available,
                        frozenset({outer}) if vary else frozenset())
    if got is None:
        return None
    b = IRBuilder()
    b.position_before_terminator(pre)
    return got.emit(b, lambda v: v)


def simulated(bstart: int, bstep: int, offset: int, pred: str, runs=lambda t: True, ustep: int = 1) -> int:
    """The largest number of inner iterations of any outer iteration that runs it."""
    most = 0
    for t in range(OUTER):
        if not runs(t):
            continue
        bound, u, n = bstart + bstep * t + offset, 0, 0
        while True:
            n += 1
            u += ustep
            if not PREDICATES[pred](u, bound):
                break
        most = max(most, n)
    return most


@pytest.mark.parametrize("bstart, bstep, offset, pred", [
    (1, 1, 0, "ne"),     # u <= t
    (0, 1, 3, "slt"),    # u < t + 3
    (7, -1, 0, "ne"),    # u < 7 - t (decreasing)
    (2, 2, 0, "sle"),    # u <= 2 + 2t
    (10, -1, -2, "slt"),
])
def test_largest_count_of_an_affine_bound(bstart: int, bstep: int, offset: int, pred: str) -> None:
    got = largest(nest(bstart, bstep, offset, pred))
    assert isinstance(got, ConstantInt)
    assert got.value == simulated(bstart, bstep, offset, pred)


def test_guarded_inner_loop() -> None:
    """`for u < t` behind `t > 0`: the formula at t = 0 (u != 0 after the first
    increment) is meaningless, the largest is at the last t."""
    got = largest(nest(0, 1, 0, "ne", guard="sgt i64 %t, 0"))
    assert isinstance(got, ConstantInt) and got.value == simulated(0, 1, 0, "ne", runs=lambda t: t > 0) == 6


def test_inner_step_two() -> None:
    got = largest(nest(3, 2, 0, "slt", ustep=2))
    assert isinstance(got, ConstantInt) and got.value == simulated(3, 2, 0, "slt", ustep=2)


def test_no_form_for_narrow_counters() -> None:
    """An i32 bound may wrap within the outer range, where the count is not monotone."""
    assert largest(nest(1, 1, 0, "ne", ty="i32")) is None


def test_no_form_for_a_non_affine_bound() -> None:
    assert largest(nest(1, 1, 0, "ne", bound="mul i64 %b, %b")) is None


def test_no_form_when_the_value_varies_in_the_outer_loop() -> None:
    """Only loops the cached value does not vary in may be maxed over."""
    assert largest(nest(1, 1, 0, "ne"), vary=False) is None


def test_runtime_sizes_emit_a_select_of_both_ends() -> None:
    text = nest(1, 1, 0, "ne").replace("define void @f(ptr %p)", "define void @f(ptr %p, i64 %n)")
    text = text.replace(f"icmp ne i64 %t.next, {OUTER}", "icmp ne i64 %t.next, %n")
    got = largest(text)
    assert got is not None and not isinstance(got, ConstantInt)
    assert got.opcode == "select"  # type: ignore[attr-defined]
