"""Floating-point vector reductions (`llvm.vector.reduce.fadd/fmul/fmax/fmin/
fmaximum/fminimum`) as scalar chains in the copy being differentiated
(synth/vector_reductions.py): the gradient of each against its analytic value,
ordered and `reassoc`, reverse and forward mode. (C code, `__builtin_reduce_max`
and `_min` at every level: programs/rev2/vector/float_reductions.c.)"""

from __future__ import annotations

from jitrun import HEAD, D, P, compile_ir, doubles, function

from enzc.ad import run_ad_stage
from enzc.ir import parse_module

REDUCTIONS = """
define double @f(ptr %x) {
  %a = load <4 x double>, ptr %x, align 8
  %pb = getelementptr inbounds i8, ptr %x, i64 32
  %b = load <4 x double>, ptr %pb, align 8
  %sum = call double @llvm.vector.reduce.fadd.v4f64(double 0.5, <4 x double> %a)
  %prod = call reassoc double @llvm.vector.reduce.fmul.v4f64(double 2.0, <4 x double> %b)
  %hi = call double @llvm.vector.reduce.fmax.v4f64(<4 x double> %a)
  %lo = call double @llvm.vector.reduce.fminimum.v4f64(<4 x double> %b)
  %t1 = fmul double %sum, %prod
  %t2 = fmul double %hi, 3.0
  %t3 = fmul double %lo, 5.0
  %t4 = fadd double %t1, %t2
  %r = fadd double %t4, %t3
  ret double %r
}
define void @grad_f(ptr %x, ptr %dx) {
  call void (...) @__enzyme_autodiff(ptr @f, metadata !"enzyme_dup", ptr %x, ptr %dx)
  ret void
}
define double @tangent_f(ptr %x, ptr %tx) {
  %t = call double (...) @__enzyme_fwddiff(ptr @f, metadata !"enzyme_dup", ptr %x, ptr %tx)
  ret double %t
}
declare void @__enzyme_autodiff(...)
declare double @__enzyme_fwddiff(...)
declare double @llvm.vector.reduce.fadd.v4f64(double, <4 x double>)
declare double @llvm.vector.reduce.fmul.v4f64(double, <4 x double>)
declare double @llvm.vector.reduce.fmax.v4f64(<4 x double>)
declare double @llvm.vector.reduce.fminimum.v4f64(<4 x double>)
"""

X = [1.5, -2.0, 4.0, 0.25, 0.5, 3.0, -1.0, 2.0]


def _analytic() -> list[float]:
    a, b = X[:4], X[4:]
    total = 0.5 + sum(a)
    prod = 2.0 * b[0] * b[1] * b[2] * b[3]
    grad = [prod] * 4 + [total * prod / v for v in b]
    grad[a.index(max(a))] += 3.0
    grad[4 + b.index(min(b))] += 5.0
    return grad


def test_reductions_reverse_and_forward():
    out = run_ad_stage(HEAD + REDUCTIONS)
    engine = compile_ir(out)
    x, dx = doubles(X), doubles([0] * 8)
    function(engine, "grad_f", None, P, P)(x, dx)
    expected = _analytic()
    assert list(dx) == expected
    tangent = function(engine, "tangent_f", D, P, P)
    for i in range(8):
        t = doubles([1.0 if j == i else 0.0 for j in range(8)])
        assert tangent(x, t) == expected[i]
    assert "@llvm.vector.reduce.fadd" in str(parse_module(out).functions["f"])  # the user's f keeps it
