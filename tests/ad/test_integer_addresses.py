"""Pointers made from integers (analysis/integer_addresses.py): a pointer stored in
a slot SROA merged into a `<4 x double>` and read back as lane bits (Eigen's
expression objects under AVX), and a block aligned by integer arithmetic (the end
to end programs: programs/rev2/heap/aligned_by_integers.c and the Eigen AVX ones).
Each derivative is run in-process against the analytic one, reverse and forward;
bits the engine cannot follow stay a located error."""

from __future__ import annotations

import ctypes

import pytest

from jitrun import HEAD, I64, P, compile_ir, doubles, function

from enzc.ad import run_ad_stage
from enzc.ad.diagnostics import ADError

from test_integer_moves import DECLS, DRIVERS


def lane_pointer(lane_bits: str) -> str:
    """f(x, k) = x[0] * x[k] * x[k], with x[0] and &x[k] kept in one `<4 x double>`
    slot and &x[k] read back as the bits of lane 2 (`lane_bits` turns them into the
    pointer's integer)."""
    return f"""
define double @f(ptr %x, i64 %k) {{
  %slot = alloca <4 x double>, align 32
  %x0 = load double, ptr %x, align 8
  store double %x0, ptr %slot, align 32
  %at = getelementptr inbounds double, ptr %x, i64 %k
  %field = getelementptr inbounds i8, ptr %slot, i64 16
  store ptr %at, ptr %field, align 16
  %v = load <4 x double>, ptr %slot, align 32
  %ints = bitcast <4 x double> %v to <4 x i64>
  %lane = extractelement <4 x i64> %ints, i64 2
{lane_bits}
  %p = inttoptr i64 %bits to ptr
  %a = load double, ptr %p, align 8
  %first = extractelement <4 x double> %v, i64 0
  %sq = fmul double %a, %a
  %r = fmul double %first, %sq
  ret double %r
}}
"""


def test_pointer_read_back_from_vector_lane_bits():
    engine = compile_ir(run_ad_stage(HEAD + lane_pointer("  %bits = add i64 %lane, 0") + DECLS + DRIVERS))
    grad = function(engine, "grad", None, P, P, I64)
    tangent = function(engine, "tangent", ctypes.c_double, P, P, I64)
    x, dx = doubles([1.5, 2.0, 3.0]), doubles([0, 0, 0])
    grad(x, dx, 2)
    assert list(dx) == [9.0, 0.0, 2 * 1.5 * 3.0]
    assert tangent(x, doubles([0, 0, 1]), 2) == 2 * 1.5 * 3.0
    assert tangent(x, doubles([1, 0, 0]), 2) == 9.0


def test_lane_bits_the_engine_cannot_follow_are_an_error():
    with pytest.raises(ADError, match="rebuilt from an integer"):
        run_ad_stage(HEAD + lane_pointer("  %bits = mul i64 %lane, 1") + DECLS + DRIVERS)
