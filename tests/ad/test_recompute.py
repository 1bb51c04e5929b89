"""Cache-or-recompute decisions by minimum cut (`enzc.ad.synth.recompute`), on small IR loops.

Each case counts the caches the derivative allocates and names the values cached:
the planner must cache the cheapest set from which the reverse pass can recompute
everything else it needs (and every derivative must still verify). Gradients of the
same shapes are checked end to end in tests/ad/programs/rev2/recompute.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from enzc.ad.analysis.activity import ArgActivity
from enzc.ad.synth.derivatives import DerivativeCache
from enzc.ad.synth.signature import Signature
from enzc.ir import parse_module
from enzc.ir.datalayout import DataLayout
from enzc.ir.verifier import verify_function

DL = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
DUP, CONST = ArgActivity.DUP, ArgActivity.CONST
ENZCC = Path(sys.executable).with_name("enzcc")
PROGRAMS = Path(__file__).parent / "programs" / "rev2"

HEAD = f'target datalayout = "{DL}"\ndeclare double @exp(double)\ndeclare double @sin(double)\n'


def loop(body: str, ret: str = "%acc.next") -> str:
    """`double f(double *x, i64 n)`: a counted loop around `body` (which defines %add,
    the term summed into %acc), %p = &x[i]."""
    return HEAD + f"""
define double @f(ptr %x, i64 %n) {{
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %acc = phi double [ 0.0, %entry ], [ %acc.next, %loop ]
  %p = getelementptr inbounds double, ptr %x, i64 %i
{body}
  %acc.next = fadd double %acc, %add
  %i.next = add nuw nsw i64 %i, 1
  %c = icmp eq i64 %i.next, %n
  br i1 %c, label %exit, label %loop
exit:
  ret double {ret}
}}
"""


def cached(ir: str) -> list[tuple[str, str]]:
    """(value, type) of each cache of f's derivative, after verifying it."""
    m = parse_module(ir)
    fn = m.get_function("f")
    d = DerivativeCache(m, DataLayout.parse(DL)).reverse(fn, Signature((DUP, CONST), True))
    verify_function(d.function)
    assert not any(i.opcode == "freeze" for i in d.function.instructions()), "a placeholder was left behind"
    return sorted((a.value, a.type) for a in d.cache_allocations)


SIGMOID = """
  %v = load double, ptr %p
  %neg = fneg double %v
  %e = call double @exp(double %neg)
  %d = fadd double %e, 1.0
  %s = fdiv double 1.0, %d
  %add = fmul double %s, %s
"""


def test_sigmoid_caches_only_the_exponential() -> None:
    """The reverse needs e (exp'), 1+e and s (the division and the square): e alone
    is cached, 1+e and s are recomputed from it; x is never written, so not cached."""
    assert cached(loop(SIGMOID)) == [("%e", "double")]


def test_value_needed_only_through_a_cheaper_one() -> None:
    """t = sin(x) reaches the reverse only as (float)t: the float is cached, not t."""
    body = """
  %v = load double, ptr %p
  %t = call double @sin(double %v)
  %y = fptrunc double %t to float
  %yy = fmul float %y, %y
  %add = fpext float %yy to double
"""
    assert cached(loop(body)) == [("%y", "float")]


def test_one_source_feeding_two_needed_values() -> None:
    """t*t and (float)t are both needed: caching t (8 bytes) beats caching both (12)."""
    body = """
  %v = load double, ptr %p
  %t = call double @sin(double %v)
  %tt = fmul double %t, %t
  %z = fmul double %tt, %v
  %y = fptrunc double %t to float
  %yy = fmul float %y, %y
  %w = fpext float %yy to double
  %add = fadd double %z, %w
"""
    assert cached(loop(body)) == [("%t", "double")]


OVERWRITE = """
  %a = load double, ptr %p
{between}
  %b = load double, ptr %p
  %m = fmul double %a, %b
  %s = call double @sin(double %m)
  store double %s, ptr %p
  %add = fmul double %s, 2.0
"""


def test_equal_loads_share_one_cache() -> None:
    """Two loads of x[i] with no write between them are one value: one cache, and the
    product a*b that sin needs is recomputed from it."""
    assert cached(loop(OVERWRITE.format(between=""))) == [("%a", "double")]


def test_loads_separated_by_a_store_stay_apart() -> None:
    """A store to x[i] between the loads: they may differ, both are cached."""
    ir = loop(OVERWRITE.format(between="  store double 1.0, ptr %p"))
    assert cached(ir) == [("%a", "double"), ("%b", "double")]


def test_nested_loop_values_cached_at_their_own_depth() -> None:
    """exp(x[i]) of the outer loop feeds a sigmoid in the inner loop: the outer value
    is cached once per outer iteration, the inner chain only at its exp."""
    ir = HEAD + """
define double @f(ptr %x, i64 %n) {
entry:
  br label %outer
outer:
  %i = phi i64 [ 0, %entry ], [ %i.next, %outer.latch ]
  %acc = phi double [ 0.0, %entry ], [ %acc.inner, %outer.latch ]
  %p = getelementptr inbounds double, ptr %x, i64 %i
  %v = load double, ptr %p
  %a = call double @exp(double %v)
  br label %inner
inner:
  %j = phi i64 [ 0, %outer ], [ %j.next, %inner ]
  %acc2 = phi double [ %acc, %outer ], [ %acc.next, %inner ]
  %q = getelementptr inbounds double, ptr %x, i64 %j
  %u = load double, ptr %q
  %au = fmul double %a, %u
  %e = call double @exp(double %au)
  %d = fadd double %e, 1.0
  %s = fdiv double %a, %d
  %acc.next = fadd double %acc2, %s
  %j.next = add nuw nsw i64 %j, 1
  %cj = icmp eq i64 %j.next, %n
  br i1 %cj, label %outer.latch, label %inner
outer.latch:
  %acc.inner = phi double [ %acc.next, %inner ]
  %i.next = add nuw nsw i64 %i, 1
  %ci = icmp eq i64 %i.next, %n
  br i1 %ci, label %exit, label %outer
exit:
  ret double %acc.inner
}
"""
    assert cached(ir) == [("%a", "double"), ("%e", "double")]


def test_affine_phi_start_cached_as_its_narrow_source() -> None:
    """The inner loop walks p = sext(k) + j, k an overwritten i32: the reverse
    rebuilds p from its start, so the 4-byte k is cached, not the i64 start (x is
    `noalias`, so x[p] is reloaded)."""
    ir = HEAD + """
@idx = global [16 x i32] zeroinitializer

define double @f(ptr noalias %x, i64 %n) {
entry:
  br label %outer
outer:
  %i = phi i64 [ 0, %entry ], [ %i.next, %outer.latch ]
  %acc = phi double [ 0.0, %entry ], [ %acc.inner, %outer.latch ]
  %ip = getelementptr inbounds [16 x i32], ptr @idx, i64 0, i64 %i
  %k = load i32, ptr %ip
  %k1 = add i32 %k, 1
  store i32 %k1, ptr %ip
  %ks = sext i32 %k to i64
  br label %inner
inner:
  %j = phi i64 [ 0, %outer ], [ %j.next, %inner ]
  %p = phi i64 [ %ks, %outer ], [ %p.next, %inner ]
  %acc2 = phi double [ %acc, %outer ], [ %acc.next, %inner ]
  %q = getelementptr inbounds double, ptr %x, i64 %p
  %u = load double, ptr %q
  %uu = fmul double %u, %u
  %acc.next = fadd double %acc2, %uu
  %p.next = add nsw i64 %p, 1
  %j.next = add nuw nsw i64 %j, 1
  %cj = icmp eq i64 %j.next, 4
  br i1 %cj, label %outer.latch, label %inner
outer.latch:
  %acc.inner = phi double [ %acc.next, %inner ]
  %i.next = add nuw nsw i64 %i, 1
  %ci = icmp eq i64 %i.next, %n
  br i1 %ci, label %exit, label %outer
exit:
  ret double %acc.inner
}
"""
    assert cached(ir) == [("%k", "i32")]


LSTM_CELL = HEAD + """
declare double @tanh(double)
declare double @llvm.fmuladd.f64(double, double, double)

define double @f(ptr %x, i64 %n) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %acc = phi double [ 0.0, %entry ], [ %acc.next, %loop ]
  %hp = getelementptr inbounds double, ptr %x, i64 %i
  %cp = getelementptr inbounds double, ptr %hp, i64 1
  %h = load double, ptr %hp
  %c = load double, ptr %cp
  %zi = call double @llvm.fmuladd.f64(double %h, double %h, double 0.1)
  %ni = fneg double %zi
  %ei = call double @exp(double %ni)
  %di = fadd double %ei, 1.0
  %gi = fdiv double 1.0, %di
  %zf = call double @llvm.fmuladd.f64(double %h, double -0.3, double 0.2)
  %nf = fneg double %zf
  %ef = call double @exp(double %nf)
  %df = fadd double %ef, 1.0
  %gf = fdiv double 1.0, %df
  %zo = call double @llvm.fmuladd.f64(double %h, double 0.7, double -0.1)
  %no = fneg double %zo
  %eo = call double @exp(double %no)
  %do = fadd double %eo, 1.0
  %go = fdiv double 1.0, %do
  %zg = fmul double %h, 0.9
  %gg = call double @tanh(double %zg)
  %ig = fmul double %gi, %gg
  %c2 = call double @llvm.fmuladd.f64(double %gf, double %c, double %ig)
  %tc = call double @tanh(double %c2)
  %h2 = fmul double %go, %tc
  store double %c2, ptr %cp
  store double %h2, ptr %hp
  %add = fmul double %h2, %h2
  %acc.next = fadd double %acc, %add
  %i.next = add nuw nsw i64 %i, 1
  %cnd = icmp eq i64 %i.next, %n
  br i1 %cnd, label %exit, label %loop
exit:
  ret double %acc.next
}
"""


def test_lstm_cell_caches_state_loads_exponentials_and_tanhs() -> None:
    """An LSTM cell over overwritten state: the loads of h and c, the three gates'
    exponentials and the two tanh results are cached (7 per iteration); the
    sigmoids, 1 + e, the cell value and every product are recomputed from them."""
    assert cached(LSTM_CELL) == sorted([("%h", "double"), ("%c", "double"), ("%ei", "double"),
                                        ("%ef", "double"), ("%eo", "double"), ("%gg", "double"),
                                        ("%tc", "double")])


def print_cache(source: Path, tmp_path: Path) -> str:
    done = subprocess.run([str(ENZCC), "-O2", str(source), "-lm", "-o", str(tmp_path / "a.out"),
                           "--enzc-print-cache"], check=True, capture_output=True, text=True)
    return done.stdout + done.stderr


@pytest.mark.parametrize("program, most", [
    ("kernels/lstm_cell.c", 23),  # 31 before
    ("recompute/sigmoid_nested.c", 3),  # 6 before
    ("recompute/branch_phi.c", 3),  # 5 before
    ("recompute/overwritten.c", 6),  # 9 before
])
def test_cache_count_of_programs(program: str, most: int, tmp_path: Path) -> None:
    """Whole programs at -O2: no more caches than the minimum cut gives today (the
    counts before it: every non-recomputable value cached where the reverse needed it)."""
    text = print_cache(PROGRAMS / program, tmp_path)
    counts = [int(line.split(":")[1].split()[0]) for line in text.splitlines() if "cached values" in line]
    assert counts and sum(counts) <= most, text
