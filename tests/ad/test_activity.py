"""Activity analysis on small IR functions, checked through its text form."""

from __future__ import annotations

import pytest

from enzc.ad.analysis.activity import ArgActivity, analyze, parse_activity_text
from enzc.ad.rules.table import has_rule
from enzc.ir import parse_module

A = {"out": ArgActivity.OUT, "const": ArgActivity.CONST, "dup": ArgActivity.DUP}


def activity_of(ir: str, args: str, active_return: bool = True) -> dict[str, bool]:
    module = parse_module(ir)
    fn = next(f for f in module.functions.values() if not f.is_declaration)
    act = analyze(fn, tuple(A[a] for a in args.split()), active_return, module, has_rule=has_rule)
    return parse_activity_text(act.text())


def expect(got: dict[str, bool], active: str, inactive: str) -> None:
    for name in active.split():
        assert got[name] is True, f"{name} should be active"
    for name in inactive.split():
        assert got[name] is False, f"{name} should be inactive"


def test_integer_arithmetic_is_inactive() -> None:
    got = activity_of("""
define double @f(double %x, i32 %n) {
entry:
  %c = sitofp i32 %n to double
  %k = add i32 %n, 1
  %y = fmul double %x, %c
  %z = fadd double %y, 1.0
  ret double %z
}
""", "out const")
    expect(got, "%x %y %z", "%n %c %k")


def test_varied_but_useless_and_useful_but_constant() -> None:
    got = activity_of("""
define double @f(double %x, double %k) {
entry:
  %dead = fmul double %x, %x
  %c = fmul double %k, 2.0
  %r = fadd double %c, %x
  ret double %r
}
""", "out const")
    expect(got, "%x %r", "%dead %c %k")


def test_loop_over_dup_array() -> None:
    got = activity_of("""
define double @sum(ptr %a, i64 %n) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %s = phi double [ 0.0, %entry ], [ %s.next, %loop ]
  %p = getelementptr inbounds double, ptr %a, i64 %i
  %v = load double, ptr %p
  %s.next = fadd double %s, %v
  %i.next = add nuw nsw i64 %i, 1
  %done = icmp eq i64 %i.next, %n
  br i1 %done, label %exit, label %loop
exit:
  ret double %s.next
}
""", "dup const")
    expect(got, "%a %p %v %s %s.next", "%n %i %i.next %done")


def test_inactive_return_makes_values_useless() -> None:
    got = activity_of("""
define double @f(double %x) {
entry:
  %y = fmul double %x, %x
  ret double %y
}
""", "out", active_return=False)
    expect(got, "", "%x %y")


def test_alloca_holding_active_data_gets_a_shadow() -> None:
    got = activity_of("""
define double @f(double %x) {
entry:
  %slot = alloca double
  %tmp = alloca i32
  store i32 3, ptr %tmp
  store double %x, ptr %slot
  %v = load double, ptr %slot
  %w = fmul double %v, %v
  ret double %w
}
""", "out")
    expect(got, "%x %slot %v %w", "%tmp")


def test_pointer_loaded_from_dup_memory_is_active() -> None:
    got = activity_of("""
define double @f(ptr %s) {
entry:
  %data.addr = getelementptr inbounds i8, ptr %s, i64 8
  %data = load ptr, ptr %data.addr
  %n = load i32, ptr %s
  %v = load double, ptr %data
  ret double %v
}
""", "dup")
    expect(got, "%s %data.addr %data %v", "%n")


def test_output_through_memory() -> None:
    got = activity_of("""
define void @f(ptr %out, double %x, double %k) {
entry:
  %y = fmul double %x, %k
  store double %y, ptr %out
  ret void
}
""", "dup out const", active_return=False)
    expect(got, "%out %x %y", "%k")


def test_read_only_call_returning_int_is_inactive() -> None:
    got = activity_of("""
declare i32 @printf(ptr, ...)
@fmt = private constant [4 x i8] c"%g\\0A\\00"
define double @f(double %x) {
entry:
  %r = call i32 (ptr, ...) @printf(ptr @fmt, double %x)
  %y = fmul double %x, 3.0
  ret double %y
}
""", "out")
    expect(got, "%x %y", "%r")


def test_text_form_round_trip() -> None:
    text = "active %x\ninactive %i\nactive store double %v, ptr %p\n"
    assert parse_activity_text(text) == {"%x": True, "%i": False, "store double %v, ptr %p": True}
    with pytest.raises(ValueError):
        parse_activity_text("maybe %x")
