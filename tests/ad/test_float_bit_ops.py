"""Sign-bit masks on the bits of float vectors (synth/float_bit_ops.py): the region
between the bitcasts becomes float shuffles and fneg/fabs; bits changed any other
way, even after a shuffle, stay a located error (memory/intfloat.py follows float
bits through shufflevector and extractelement). End to end:
programs/rev2/vector/sign_bit_masks.c, programs/rev2/cxx/eigen_inverse4.cpp."""

from __future__ import annotations

import pytest

from jitrun import HEAD, P, compile_ir, doubles, function

from enzc.ad import run_ad_stage
from enzc.ad.diagnostics import ADError


def program(mask: str) -> str:
    """f(x) = lane 1 of (splat(x0) xor mask) * x1."""
    return f"""
define double @f(ptr %x) {{
  %v = load <2 x double>, ptr %x, align 8
  %bits = bitcast <2 x double> %v to <2 x i64>
  %both = shufflevector <2 x i64> %bits, <2 x i64> poison, <2 x i32> zeroinitializer
  %flip = xor <2 x i64> %both, {mask}
  %back = bitcast <2 x i64> %flip to <2 x double>
  %lane = extractelement <2 x double> %back, i64 1
  %x1 = extractelement <2 x double> %v, i64 1
  %r = fmul double %lane, %x1
  ret double %r
}}
define void @grad(ptr %x, ptr %dx) {{
  call void (...) @__enzyme_autodiff(ptr @f, metadata !"enzyme_dup", ptr %x, ptr %dx)
  ret void
}}
declare void @__enzyme_autodiff(...)
"""


def test_sign_flip_after_a_shuffle_is_a_negation():
    out = run_ad_stage(HEAD + program("<i64 0, i64 -9223372036854775808>"))
    x, dx = doubles([1.5, 2.0]), doubles([0.0, 0.0])
    function(compile_ir(out), "grad", None, P, P)(x, dx)
    assert list(dx) == [-2.0, -1.5]


def test_other_bit_changes_after_a_shuffle_are_an_error():
    with pytest.raises(ADError, match="bits of an active"):
        run_ad_stage(HEAD + program("<i64 0, i64 1>"))
