"""Which forward values the reverse recomputes from the arguments (`enzc.ad.synth.rematerialize`).

Only pure, non-trapping expressions of arguments and constants qualify: a load, a
call or a phi may give another value in the reverse, and a division by a runtime
value may trap where the forward did not run it. Gradients through recomputed
values are checked end to end in programs/rev2/recursion (strided_halves.c,
divide_conquer.c) and by the FFT benchmark.
"""

from __future__ import annotations

import pytest

from enzc.ad.synth.rematerialize import argument_expression
from enzc.ir import parse_module

F = """
declare double @sin(double)
define void @f(ptr %p, i32 %n, i32 %k) {
entry:
  %h = sdiv i32 %n, 2
  %hw = sext i32 %h to i64
  %half = getelementptr inbounds double, ptr %p, i64 %hw
  %leaf = icmp eq i32 %n, 1
  %pick = select i1 %leaf, ptr %p, ptr %half
  %byk = sdiv i32 %n, %k
  %bym1 = sdiv i32 %n, -1
  %rem = urem i32 %n, 3
  %q = add i32 %byk, 1
  %v = load i32, ptr %p
  %w = add i32 %v, %n
  %s = call double @sin(double 1.0)
  br label %next
next:
  %ph = phi i32 [ %n, %entry ]
  %deep0 = add i32 %n, 1
  %deep1 = add i32 %deep0, 1
  %deep2 = add i32 %deep1, 1
  %deep3 = add i32 %deep2, 1
  %deep4 = add i32 %deep3, 1
  %deep5 = add i32 %deep4, 1
  %deep6 = add i32 %deep5, 1
  %deep7 = add i32 %deep6, 1
  %deep8 = add i32 %deep7, 1
  ret void
}
"""


@pytest.fixture(scope="module")
def values():
    fn = parse_module(F).functions["f"]
    return {i.name: i for i in fn.instructions() if i.name}


@pytest.mark.parametrize("name", ["h", "hw", "half", "leaf", "pick", "rem", "deep7"])
def test_recomputed(values, name: str) -> None:
    assert argument_expression(values[name])


@pytest.mark.parametrize("name", [
    "byk",    # may divide by zero
    "bym1",   # INT_MIN / -1 overflows
    "q",      # uses a division that may trap
    "v", "w", # memory may differ in the reverse
    "s",      # a call
    "ph",     # control flow
    "deep8",  # too long to recompute
])
def test_kept(values, name: str) -> None:
    assert not argument_expression(values[name])
