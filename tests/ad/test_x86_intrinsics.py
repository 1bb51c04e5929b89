"""x86 intrinsics as generic IR in the copy being differentiated
(synth/x86_intrinsics.py), on float vectors, with the gradient each lane's choice
gives: horizontal adds, scalar max, variable blends, the double-to-float narrowing
and AVX-512's max/min with the current rounding mode. (Double forms, FMA asm and
both modes end to end: programs/rev2/vector/x86_intrinsics_asm.c.)"""

from __future__ import annotations

import ctypes

import pytest

from jitrun import HEAD, P, compile_ir, doubles, function

from enzc.ad import run_ad_stage
from enzc.ir import parse_module

from gradcheck import cpu_features

FLOATS = """
define float @f(ptr %x) {
  %a = load <4 x float>, ptr %x, align 4
  %pb = getelementptr inbounds i8, ptr %x, i64 16
  %b = load <4 x float>, ptr %pb, align 4
  %h = call <4 x float> @llvm.x86.sse3.hadd.ps(<4 x float> %a, <4 x float> %b)
  %m = call <4 x float> @llvm.x86.sse.max.ss(<4 x float> %a, <4 x float> %b)
  %mask = fsub <4 x float> %a, %b
  %bl = call <4 x float> @llvm.x86.sse41.blendvps(<4 x float> %a, <4 x float> %b, <4 x float> %mask)
  %hw = fmul <4 x float> %h, <float 1.0, float 2.0, float 3.0, float 4.0>
  %mw = fmul <4 x float> %m, <float 10.0, float 20.0, float 30.0, float 40.0>
  %bw = fmul <4 x float> %bl, <float 100.0, float 200.0, float 300.0, float 400.0>
  %s1 = fadd <4 x float> %hw, %mw
  %s = fadd <4 x float> %s1, %bw
  %s.e0 = extractelement <4 x float> %s, i64 0
  %s.e1 = extractelement <4 x float> %s, i64 1
  %s.e2 = extractelement <4 x float> %s, i64 2
  %s.e3 = extractelement <4 x float> %s, i64 3
  %s.s1 = fadd float %s.e0, %s.e1
  %s.s2 = fadd float %s.s1, %s.e2
  %s.s3 = fadd float %s.s2, %s.e3
  %r = fadd float %s.s3, 0.0
  ret float %r
}
define float @g(ptr %y) {
  %v = load <2 x double>, ptr %y, align 8
  %c = call <4 x float> @llvm.x86.sse2.cvtpd2ps(<2 x double> %v)
  %w = fmul <4 x float> %c, <float 3.0, float 5.0, float 11.0, float 7.0>
  %w.e0 = extractelement <4 x float> %w, i64 0
  %w.e1 = extractelement <4 x float> %w, i64 1
  %w.e2 = extractelement <4 x float> %w, i64 2
  %w.e3 = extractelement <4 x float> %w, i64 3
  %w.s1 = fadd float %w.e0, %w.e1
  %w.s2 = fadd float %w.s1, %w.e2
  %w.s3 = fadd float %w.s2, %w.e3
  %r = fadd float %w.s3, 0.0
  ret float %r
}
define void @grad_f(ptr %x, ptr %dx) {
  call void (...) @__enzyme_autodiff(ptr @f, metadata !"enzyme_dup", ptr %x, ptr %dx)
  ret void
}
define void @grad_g(ptr %y, ptr %dy) {
  call void (...) @__enzyme_autodiff(ptr @g, metadata !"enzyme_dup", ptr %y, ptr %dy)
  ret void
}
declare void @__enzyme_autodiff(...)
declare <4 x float> @llvm.x86.sse3.hadd.ps(<4 x float>, <4 x float>)
declare <4 x float> @llvm.x86.sse.max.ss(<4 x float>, <4 x float>)
declare <4 x float> @llvm.x86.sse41.blendvps(<4 x float>, <4 x float>, <4 x float>)
declare <4 x float> @llvm.x86.sse2.cvtpd2ps(<2 x double>)
"""

AVX512 = """
define double @k(ptr %x) {
  %a = load <8 x double>, ptr %x, align 8
  %pb = getelementptr inbounds i8, ptr %x, i64 64
  %b = load <8 x double>, ptr %pb, align 8
  %m = call <8 x double> @llvm.x86.avx512.min.pd.512(<8 x double> %a, <8 x double> %b, i32 4)
  %h = call <8 x float> @llvm.x86.avx.hadd.ps.256(<8 x float> <float 1.0, float 2.0, float 3.0, float 4.0, float 5.0, float 6.0, float 7.0, float 8.0>, <8 x float> zeroinitializer)
  %h0 = extractelement <8 x float> %h, i64 4
  %w = fpext float %h0 to double
  %s = fmul <8 x double> %m, <double 1.0, double 2.0, double 3.0, double 4.0, double 5.0, double 6.0, double 7.0, double 8.0>
  %s.e0 = extractelement <8 x double> %s, i64 0
  %s.e1 = extractelement <8 x double> %s, i64 1
  %s.e2 = extractelement <8 x double> %s, i64 2
  %s.e3 = extractelement <8 x double> %s, i64 3
  %s.e4 = extractelement <8 x double> %s, i64 4
  %s.e5 = extractelement <8 x double> %s, i64 5
  %s.e6 = extractelement <8 x double> %s, i64 6
  %s.e7 = extractelement <8 x double> %s, i64 7
  %s.s1 = fadd double %s.e0, %s.e1
  %s.s2 = fadd double %s.s1, %s.e2
  %s.s3 = fadd double %s.s2, %s.e3
  %s.s4 = fadd double %s.s3, %s.e4
  %s.s5 = fadd double %s.s4, %s.e5
  %s.s6 = fadd double %s.s5, %s.e6
  %s.s7 = fadd double %s.s6, %s.e7
  %r = fadd double %s.s7, 0.0
  %rw = fmul double %r, %w
  ret double %rw
}
define void @grad_k(ptr %x, ptr %dx) {
  call void (...) @__enzyme_autodiff(ptr @k, metadata !"enzyme_dup", ptr %x, ptr %dx)
  ret void
}
declare void @__enzyme_autodiff(...)
declare <8 x double> @llvm.x86.avx512.min.pd.512(<8 x double>, <8 x double>, i32)
declare <8 x float> @llvm.x86.avx.hadd.ps.256(<8 x float>, <8 x float>)
"""


def floats(values) -> ctypes.Array:
    return (ctypes.c_float * len(values))(*values)


@pytest.mark.skipif(not {"sse4_1"} <= cpu_features(), reason="this processor lacks SSE4.1")
def test_float_hadd_max_blend_and_narrowing():
    out = run_ad_stage(HEAD + FLOATS)
    engine = compile_ir(out, host_cpu=True)
    x, dx = floats([1, 5, 2, 7, 3, 4, 6, 1]), floats([0] * 8)
    function(engine, "grad_f", None, P, P)(x, dx)
    # hadd: a0+a1, a2+a3, b0+b1, b2+b3 (x 1 2 3 4); max.ss: b0 (3 > 1), then a1..a3
    # (x 10 20 30 40); blendv by the sign of a - b: b0, a1, b2, a3 (x 100 .. 400)
    assert list(dx) == [1, 1 + 20 + 200, 2 + 30, 2 + 40 + 400, 3 + 10 + 100, 3, 4 + 300, 4]
    y, dy = doubles([0.25, -1.5]), doubles([0, 0])
    function(engine, "grad_g", None, P, P)(y, dy)
    assert list(dy) == [3, 5]  # the upper two lanes are zeros, not y
    assert "@llvm.x86.sse3.hadd.ps" in str(parse_module(out).functions["f"])  # the user's f keeps it


@pytest.mark.skipif(not {"avx", "avx512f"} <= cpu_features(), reason="this processor lacks AVX-512")
def test_avx512_min_and_avx_float_hadd():
    out = run_ad_stage(HEAD + AVX512)
    x = doubles([1, 9, 2, 8, 3, 7, 4, 6] + [5, 5, 5, 5, 5, 5, 5, 5])
    dx = doubles([0] * 16)
    function(compile_ir(out, host_cpu=True), "grad_k", None, P, P)(x, dx)
    scale = 5 + 6  # lane 4 of the 256-bit hadd: the second 128-bit lane's first pair
    a_takes = [x[i] < x[8 + i] for i in range(8)]
    assert list(dx) == [scale * (i + 1) * a_takes[i] for i in range(8)] + \
        [scale * (i + 1) * (not a_takes[i]) for i in range(8)]
