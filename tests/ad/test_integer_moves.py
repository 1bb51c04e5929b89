"""Integer loads and stores over memory with shadows (`intfloat`, `intpieces`): the
bits of a double, a `{float, int}` pair moved as one `i64`, and constants stored as
integers over active data (`memset(&x, 0, 8)`, a double copied from a constant table).
Each derivative is run in-process and compared with the analytic one, in reverse and
forward mode."""

from __future__ import annotations

import ctypes

import pytest

from jitrun import HEAD, I64, P, compile_ir, doubles, function

from enzc.ad import run_ad_stage

DECLS = """
declare void @__enzyme_autodiff(...)
declare double @__enzyme_fwddiff(...)
"""

DRIVERS = """
define void @grad(ptr %x, ptr %dx, i64 %k) {
  call void (...) @__enzyme_autodiff(ptr @f, metadata !"enzyme_dup", ptr %x, ptr %dx,
                                     metadata !"enzyme_const", i64 %k)
  ret void
}
define double @tangent(ptr %x, ptr %dx, i64 %k) {
  %t = call double (...) @__enzyme_fwddiff(ptr @f, metadata !"enzyme_dup", ptr %x, ptr %dx,
                                           metadata !"enzyme_const", i64 %k)
  ret double %t
}
"""


def build(body: str):
    engine = compile_ir(run_ad_stage(HEAD + DECLS + body + DRIVERS))
    return (function(engine, "grad", None, P, P, I64), function(engine, "tangent", ctypes.c_double, P, P, I64))


def reverse(body: str, x: list[float], seed: list[float], k: int = 0) -> list[float]:
    grad, _ = build(body)
    dx = doubles(seed)
    grad(doubles(x), dx, k)
    return list(dx)


def forward(body: str, x: list[float], direction: list[float], k: int = 0) -> tuple[float, list[float]]:
    """The tangent of the result, and the tangents left in x's shadow."""
    _, tangent = build(body)
    dx = doubles(direction)
    t = tangent(doubles(x), dx, k)
    return t, list(dx)


# r = x0*x1, then x0 = 0 and x1 = 2.25 stored as integers, then r += 3*x[k] + 5*x[k+1]
# (k = 0 at run time: the overwritten values are read back)
CONSTANT_OVERWRITE = """
define double @f(ptr %x, i64 %k) {
  %p1 = getelementptr inbounds double, ptr %x, i64 1
  %a = load double, ptr %x
  %b = load double, ptr %p1
  %ab = fmul double %a, %b
  store i64 0, ptr %x
  store i64 4612811918334230528, ptr %p1
  %pk = getelementptr inbounds double, ptr %x, i64 %k
  %u = load double, ptr %pk
  %pk1 = getelementptr inbounds double, ptr %pk, i64 1
  %v = load double, ptr %pk1
  %u3 = fmul double %u, 3.0
  %v5 = fmul double %v, 5.0
  %s = fadd double %u3, %v5
  %r = fadd double %ab, %s
  ret double %r
}
"""


def test_constant_stored_as_integer_drops_the_adjoint() -> None:
    # dx starts as the seed of x's final values: they are constants, so it is dropped
    assert reverse(CONSTANT_OVERWRITE, [0.7, -1.3], [0.0, 0.0]) == pytest.approx([-1.3, 0.7], rel=1e-15)
    assert reverse(CONSTANT_OVERWRITE, [0.7, -1.3], [10.0, 20.0]) == pytest.approx([-1.3, 0.7], rel=1e-15)


def test_constant_stored_as_integer_zeroes_the_tangent() -> None:
    t, left = forward(CONSTANT_OVERWRITE, [0.7, -1.3], [1.0, 2.0])
    assert t == pytest.approx(-1.3 * 1.0 + 0.7 * 2.0, rel=1e-15)
    assert left == [0.0, 0.0]


# x0 = integer bits computed from k (inactive, not a constant), over memory whose only
# type is what this store and the load through k say
COMPUTED_BITS = """
define double @f(ptr %x, i64 %k) {
  %a = load double, ptr %x
  %sq = fmul double %a, %a
  %e = add i64 %k, 1023
  %bits = shl i64 %e, 52
  store i64 %bits, ptr %x
  %pk = getelementptr inbounds double, ptr %x, i64 %k
  %u = load double, ptr %pk
  %u3 = fmul double %u, 3.0
  %r = fadd double %sq, %u3
  ret double %r
}
"""


def test_inactive_integer_bits_over_a_double() -> None:
    assert reverse(COMPUTED_BITS, [0.6], [4.0]) == pytest.approx([1.2], rel=1e-15)
    t, left = forward(COMPUTED_BITS, [0.6], [1.0])
    assert (t, left) == (pytest.approx(1.2, rel=1e-15), [0.0])


# struct {float v; i32 id} moved as one i64 from x[0] into a local copy (what a struct
# assignment becomes), then its float read back: r = 3 * v * v, and the id is kept
MIXED_PAIR = """
define double @f(ptr %x, i64 %k) {
  %tmp = alloca { float, i32 }, align 8
  %pv = getelementptr inbounds i8, ptr %x, i64 8
  %v0 = load float, ptr %pv, !tbaa !1
  %idp = getelementptr inbounds i8, ptr %x, i64 12
  %id0 = load i32, ptr %idp, !tbaa !4
  %bits = load i64, ptr %pv, align 4
  store i64 %bits, ptr %tmp, align 8
  %lo = trunc i64 %bits to i32
  %hi.s = lshr i64 %bits, 32
  %hi = trunc i64 %hi.s to i32
  %vf = bitcast i32 %lo to float
  %v = load float, ptr %tmp, !tbaa !1
  %idq = getelementptr inbounds i8, ptr %tmp, i64 4
  %id = load i32, ptr %idq, !tbaa !4
  %w = fpext float %v to double
  %vf2 = fpext float %vf to double
  %sq = fmul double %w, %vf2
  %idf = sitofp i32 %id to double
  %hif = sitofp i32 %hi to double
  %c = fadd double %idf, %hif
  %r = fmul double %sq, %c
  ret double %r
}
!0 = !{!"Simple C/C++ TBAA"}
!1 = !{!2, !2, i64 0}
!2 = !{!"float", !0, i64 0}
!3 = !{!"int", !0, i64 0}
!4 = !{!3, !3, i64 0}
"""


def _pair_memory(v: float, ident: int) -> list[float]:
    """x[0] = a double (unused), x[1] = the bytes of {float v, int id}."""
    raw = ctypes.create_string_buffer(16)
    ctypes.c_float.from_buffer(raw, 8).value = v
    ctypes.c_int32.from_buffer(raw, 12).value = ident
    return list((ctypes.c_double * 2).from_buffer(raw))


def test_mixed_float_int_pair_moved_as_one_integer() -> None:
    v, ident = 1.5, 3
    grad, tangent = build(MIXED_PAIR)
    x = doubles(_pair_memory(v, ident))
    dx = doubles([0.0, 0.0])
    grad(x, dx, 0)
    dv = ctypes.c_float.from_buffer(dx, 8).value
    assert dv == pytest.approx(2 * v * 2 * ident, rel=1e-7)  # r = v^2 * (id + id)
    assert ctypes.c_int32.from_buffer(dx, 12).value == 0
    tx = doubles([0.0, 0.0])
    ctypes.c_float.from_buffer(tx, 8).value = 1.0
    assert tangent(x, tx, 0) == pytest.approx(2 * v * 2 * ident, rel=1e-7)


# the bits of x0 loaded as i64, turned back into a double for arithmetic and also
# stored into x1 (a swap helper and a use of the moved value)
BITS_BACK_TO_DOUBLE = """
define double @f(ptr %x, i64 %k) {
  %p1 = getelementptr inbounds double, ptr %x, i64 1
  %bits = load i64, ptr %x
  store i64 %bits, ptr %p1
  %d = bitcast i64 %bits to double
  %sq = fmul double %d, %d
  %pk = getelementptr inbounds double, ptr %x, i64 %k
  %pk1 = getelementptr inbounds double, ptr %pk, i64 1
  %u = load double, ptr %pk1
  %u3 = fmul double %u, 3.0
  %r = fadd double %sq, %u3
  ret double %r
}
"""


def test_integer_bits_of_a_double_used_as_a_double() -> None:
    assert reverse(BITS_BACK_TO_DOUBLE, [0.5, 9.0], [0.0, 0.0]) == pytest.approx([1.0 + 3.0, 0.0], rel=1e-15)
    t, left = forward(BITS_BACK_TO_DOUBLE, [0.5, 9.0], [1.0, 7.0])
    assert t == pytest.approx(1.0 + 3.0, rel=1e-15)
    assert left == [1.0, 1.0]
