"""Iteration counts of loops on IR snippets (`enzc.ad.analysis.tripcount`), in particular
the exhaustive evaluation of exit tests that depend only on header phis."""

from __future__ import annotations

from enzc.ir import parse_module
from enzc.ir.dominators import DominatorTree

from enzc.ir.loops import LoopInfo
from enzc.ad.analysis.tripcount import trip_count


def count_of(body: str):
    fn = parse_module(body).functions["f"]
    dt = DominatorTree(fn)
    loops = LoopInfo(fn, dt).loops
    assert len(loops) == 1
    return trip_count(loops[0], dt)


FLAG_LOOP = """
define void @f(ptr %p) {
entry:
  br label %loop
loop:
  %first = phi i1 [ true, %entry ], [ false, %loop ]
  %i = phi i64 [ 0, %entry ], [ 5, %loop ]
  %q = getelementptr double, ptr %p, i64 %i
  store double 1.0, ptr %q
  br i1 %first, label %loop, label %exit
exit:
  ret void
}
"""


def test_phi_flag_loop_runs_twice() -> None:
    tc = count_of(FLAG_LOOP)
    assert tc is not None and tc.exact
    assert tc.constant() == 2
    assert tc.operands() == ()


def test_recurrence_through_arithmetic() -> None:
    # x = 1, 2, 4, 8, ...: continues while x != 32 (tested after doubling): 5 iterations
    tc = count_of("""
define void @f() {
entry:
  br label %loop
loop:
  %x = phi i32 [ 1, %entry ], [ %y, %loop ]
  %y = shl i32 %x, 1
  %c = icmp ne i32 %y, 32
  br i1 %c, label %loop, label %exit
exit:
  ret void
}
""")
    assert tc is not None and tc.exact and tc.constant() == 5


def test_state_machine_of_two_phis() -> None:
    # (a, b) = (0, 1) -> (1, 1) -> (1, 2) -> (2, 3) -> (3, 5): exits when b > 4
    tc = count_of("""
define void @f() {
entry:
  br label %loop
loop:
  %a = phi i8 [ 0, %entry ], [ %b, %latch ]
  %b = phi i8 [ 1, %entry ], [ %s, %latch ]
  %done = icmp sgt i8 %b, 4
  br i1 %done, label %exit, label %latch
latch:
  %s = add i8 %a, %b
  br label %loop
exit:
  ret void
}
""")
    assert tc is not None and tc.exact and tc.constant() == 5


def test_non_constant_start_gives_no_count() -> None:
    tc = count_of("""
define void @f(i1 %start) {
entry:
  br label %loop
loop:
  %first = phi i1 [ %start, %entry ], [ false, %loop ]
  br i1 %first, label %loop, label %exit
exit:
  ret void
}
""")
    assert tc is None


def test_test_on_loaded_value_gives_no_count() -> None:
    tc = count_of("""
define void @f(ptr %p) {
entry:
  br label %loop
loop:
  %first = phi i1 [ true, %entry ], [ false, %loop ]
  %v = load i1, ptr %p
  %c = and i1 %first, %v
  br i1 %c, label %loop, label %exit
exit:
  ret void
}
""")
    assert tc is None


def test_too_many_iterations_gives_no_count() -> None:
    # 100 iterations of a non-affine recurrence: beyond the evaluation limit
    tc = count_of("""
define void @f() {
entry:
  br label %loop
loop:
  %x = phi i32 [ 0, %entry ], [ %y, %loop ]
  %y = xor i32 %x, 0
  %z = phi i32 [ 0, %entry ], [ %w, %loop ]
  %w = or i32 %z, 0
  %k = phi i32 [ 0, %entry ], [ %kn, %loop ]
  %kn = mul i32 %k, 1
  %kk = add i32 %kn, %x
  %c = icmp eq i32 %kk, 7
  br i1 %c, label %exit, label %loop
exit:
  ret void
}
""")
    assert tc is None


def test_affine_constant_count_is_folded() -> None:
    tc = count_of("""
define void @f() {
entry:
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %n, %loop ]
  %n = add i32 %i, 1
  %c = icmp slt i32 %n, 10
  br i1 %c, label %loop, label %exit
exit:
  ret void
}
""")
    assert tc is not None and tc.fixed is None and tc.constant() == 10


def test_second_exit_makes_the_count_a_bound() -> None:
    tc = count_of("""
define void @f(ptr %p) {
entry:
  br label %loop
loop:
  %first = phi i1 [ true, %entry ], [ false, %latch ]
  %v = load i1, ptr %p
  br i1 %v, label %exit, label %latch
latch:
  br i1 %first, label %loop, label %exit
exit:
  ret void
}
""")
    # the latch test runs every iteration but the load may leave earlier
    assert tc is not None and not tc.exact and tc.constant() == 2


def test_increment_merged_by_a_latch_phi() -> None:
    # LLVM leaves `%next = phi [%i + 1, %a], [%i + 1, %b]` when two paths reach the latch
    tc = count_of("""
define void @f(i64 %n, i1 %c) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %next, %latch ]
  br i1 %c, label %a, label %b
a:
  %ia = add nuw i64 %i, 1
  br label %latch
b:
  %ib = add nuw i64 %i, 1
  br label %latch
latch:
  %next = phi i64 [ %ia, %a ], [ %ib, %b ]
  %done = icmp eq i64 %next, %n
  br i1 %done, label %exit, label %loop
exit:
  ret void
}
""")
    assert tc is not None and tc.exact and tc.on_next and tc.step == 1 and tc.predicate == "ne"


def test_merged_increments_of_different_steps_give_no_count() -> None:
    tc = count_of("""
define void @f(i64 %n, i1 %c) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %next, %latch ]
  br i1 %c, label %a, label %b
a:
  %ia = add nuw i64 %i, 1
  br label %latch
b:
  %ib = add nuw i64 %i, 2
  br label %latch
latch:
  %next = phi i64 [ %ia, %a ], [ %ib, %b ]
  %done = icmp eq i64 %next, %n
  br i1 %done, label %exit, label %loop
exit:
  ret void
}
""")
    assert tc is None


TRUNCATED_LOOP = """
define void @f(ptr %p, i32 %lo, i32 %hi) {
entry:
  %start = START
  br label %loop
loop:
  %i = phi i64 [ %start, %entry ], [ %i.next, %loop ]
  %q = getelementptr double, ptr %p, i64 %i
  store double 1.0, ptr %q
  %i.next = add nsw i64 %i, 1
  %narrow = trunc i64 %i.next to i32
  %done = icmp eq i32 %narrow, BOUND
  br i1 %done, label %exit, label %loop
exit:
  ret void
}
"""


def test_truncated_counter_counts_in_the_narrow_type() -> None:
    # LLVM's widened `int` counter tested as `trunc(i + 1) == hi + 1`: i = 5 .. 11
    tc = count_of(TRUNCATED_LOOP.replace("START", "add i64 0, 0").replace("%start, %entry", "5, %entry")
                  .replace("BOUND", "12"))
    assert tc is not None and tc.exact and tc.constant() == 7
    # only the low 32 bits of a constant start matter: 2^32 + 5 counts like 5
    tc = count_of(TRUNCATED_LOOP.replace("%start, %entry", "4294967301, %entry").replace("START", "add i64 0, 0")
                  .replace("BOUND", "12"))
    assert tc is not None and tc.constant() == 7


def test_truncated_counter_starts_at_the_extended_value() -> None:
    tc = count_of(TRUNCATED_LOOP.replace("START", "sext i32 %lo to i64").replace("BOUND", "%hi"))
    assert tc is not None and tc.exact and tc.on_next
    assert tc.start.name == "lo" and tc.bound.name == "hi"  # type: ignore[attr-defined]


def test_truncated_counter_of_a_wide_start_gives_no_count() -> None:
    # the start's low bits would need an instruction the original does not have
    tc = count_of(TRUNCATED_LOOP.replace("START", "load i64, ptr %p").replace("BOUND", "%hi"))
    assert tc is None
