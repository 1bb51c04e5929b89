"""Custom derivatives, inactivity marks, function-like registrations and global shadows
on small IR modules: gradients run in-process (MCJIT) against analytic values; the
annotations, the frontend's keep-list and the errors are checked on text."""

from __future__ import annotations

import io
import math

import pytest

from jitrun import HEAD, D, compile_ir, function

from enzc.ad import ADError, ADOptions, run_ad_stage
from enzc.ad.markers import apply_registrations, functions_to_keep
from enzc.ad.pipeline import lower_module
from enzc.ir import parse_module

AUTODIFF = "declare double @__enzyme_autodiff(...)\n"


def scalar_gradient(body: str, x: float, fn: str = "f", options: ADOptions = ADOptions()) -> float:
    driver = f"""
define double @grad(double %x) {{
  %r = call double (...) @__enzyme_autodiff(ptr @{fn}, metadata !"enzyme_out", double %x)
  ret double %r
}}
"""
    out = run_ad_stage(HEAD + AUTODIFF + body + driver, options)
    return function(compile_ir(out), "grad", D, D)(x)


# cube(x) is "opaque" (its body rounds); its custom rule says 3 x^2, read from the tape.
CUBE = """
define double @cube(double %x) {
  %s = fmul double %x, %x
  %c = fmul double %s, %x
  %i = fptosi double %c to i64
  %r = sitofp i64 %i to double
  ret double %r
}
"""

IR_FORM = CUBE + """
define { double, double } @aug_cube(double %x) {
  %p = call double @cube(double %x)
  %a = insertvalue { double, double } undef, double %x, 0
  %b = insertvalue { double, double } %a, double %p, 1
  ret { double, double } %b
}
define { double } @grad_cube(double %x, double %d, double %tape) {
  %s = fmul double %tape, %tape
  %t = fmul double %s, 3.0
  %g = fmul double %t, %d
  %r = insertvalue { double } undef, double %g, 0
  ret { double } %r
}
!0 = !{ptr @aug_cube}
!1 = !{ptr @grad_cube}
"""

# f(x) = sum_{k=1..3} cube(x * k) * k, the custom call in a loop (one tape per iteration)
LOOP = """
define double @f(double %x) {
entry:
  br label %loop
loop:
  %k = phi i64 [ 1, %entry ], [ %k1, %loop ]
  %s = phi double [ 0.0, %entry ], [ %s1, %loop ]
  %kf = sitofp i64 %k to double
  %xk = fmul double %x, %kf
  %c = call double @cube(double %xk)
  %t = fmul double %c, %kf
  %s1 = fadd double %s, %t
  %k1 = add i64 %k, 1
  %more = icmp sle i64 %k1, 3
  br i1 %more, label %loop, label %done
done:
  ret double %s1
}
"""


def test_ir_metadata_custom_gradient_in_a_loop() -> None:
    body = IR_FORM.replace("define double @cube(double %x) {",
                           "define double @cube(double %x) !enzyme_augment !0 !enzyme_gradient !1 {") + LOOP
    x = 0.7
    want = sum(3 * (x * k) ** 2 * k * k for k in (1, 2, 3))
    assert scalar_gradient(body, x) == pytest.approx(want, rel=1e-14)


def test_c_registration_with_scalar_shapes() -> None:
    # C shapes: the augmented returns the primal alone (no tape), the reverse a double
    body = CUBE + """
define double @aug(double %x) {
  %p = call double @cube(double %x)
  ret double %p
}
define double @rev(double %x, double %d) {
  %s = fmul double %x, %x
  %t = fmul double %s, 3.0
  %g = fmul double %t, %d
  ret double %g
}
@__enzyme_register_gradient_cube = global [3 x ptr] [ptr @cube, ptr @aug, ptr @rev]
""" + LOOP
    x = -0.4
    want = sum(3 * (x * k) ** 2 * k * k for k in (1, 2, 3))
    assert scalar_gradient(body, x) == pytest.approx(want, rel=1e-14)


def test_custom_shape_mismatch_is_a_clear_error() -> None:
    body = CUBE + """
define double @aug(double %x, double %y) {
  ret double %x
}
define double @rev(double %x, double %d) {
  ret double %d
}
@__enzyme_register_gradient_cube = global [3 x ptr] [ptr @cube, ptr @aug, ptr @rev]
define double @f(double %x) {
  %c = call double @cube(double %x)
  ret double %c
}
"""
    with pytest.raises(ADError) as info:
        scalar_gradient(body, 1.0)
    text = str(info.value)
    assert "custom derivative of 'cube'" in text and "2 parameters; expected 1" in text and "hint:" in text


def test_inactive_function_and_function_like() -> None:
    body = """
declare double @llvm.tanh.f64(double)
define double @scale(double %x) {
  %t = call double @llvm.tanh.f64(double %x)
  ret double %t
}
define double @mylog(double %x) {
  %i = fptosi double %x to i64
  %r = sitofp i64 %i to double
  ret double %r
}
@.str = private constant [6 x i8] c"log1p\\00"
@__enzyme_inactivefn = global [1 x ptr] [ptr @scale]
@__enzyme_function_like = global [2 x ptr] [ptr @mylog, ptr @.str]
define double @f(double %x) {
  %s = call double @scale(double %x)
  %xs = fmul double %x, %s
  %l = call double @mylog(double %x)
  %r = fadd double %xs, %l
  ret double %r
}
"""
    x = 0.6
    assert scalar_gradient(body, x) == pytest.approx(math.tanh(x) + 1 / (1 + x), rel=1e-14)


def test_registrations_become_annotations_and_bad_ones_errors() -> None:
    m = parse_module(HEAD + """
define void @f() {
  ret void
}
define void @a() {
  ret void
}
@g = global double 0.0
@__enzyme_register_gradient_f = global [3 x ptr] [ptr @f, ptr @a, ptr @a]
@__enzyme_inactive_global_g = global ptr @g
""")
    apply_registrations(m)
    assert {"enzyme_augment", "enzyme_gradient"} <= set(m.functions["f"].metadata)
    assert "enzyme_inactive" in m.globals["g"].metadata
    bad = parse_module(HEAD + """
define void @f() {
  ret void
}
@__enzyme_register_gradient_f = global [2 x ptr] [ptr @f, ptr @f]
""")
    with pytest.raises(ADError) as info:
        apply_registrations(bad)
    assert "malformed registration" in str(info.value) and "3 functions" in str(info.value)


def test_c_shadow_global_registration() -> None:
    """`__enzyme_shadow_global_*` = {&g, &d_g} is C's `!enzyme_shadow !{ptr @d_g}`."""
    from enzc.ad.analysis.globals_shadow import shadow_of_global

    m = parse_module(HEAD + """
@g = global [2 x double] zeroinitializer
@d_g = global [2 x double] zeroinitializer
@__enzyme_shadow_global_g = global [2 x ptr] [ptr @g, ptr @d_g]
""")
    apply_registrations(m)
    assert shadow_of_global(m, m.globals["g"]) is m.globals["d_g"]
    bad = parse_module(HEAD + """
@g = global [2 x double] zeroinitializer
@d_g = global double 0.0
@__enzyme_shadow_global_g = global [2 x ptr] [ptr @g, ptr @d_g]
""")
    with pytest.raises(ADError, match="same type"):
        apply_registrations(bad)


def test_functions_the_driver_keeps_from_inlining() -> None:
    keep = functions_to_keep([
        ("__enzyme_register_gradient_f", "@__enzyme_register_gradient_f = global [3 x ptr] "
                                         "[ptr @f, ptr @aug_f, ptr @rev_f], align 16"),
        ("__enzyme_inactivefn", '@__enzyme_inactivefn = global [2 x ptr] [ptr @a, ptr @"b.c"]'),
        ("__enzyme_function_like", "@__enzyme_function_like = global [2 x ptr] [ptr @h, ptr @.str]"),
        ("other", "@other = global ptr @z"),
    ])
    assert keep == ["f", "a", "b.c", "h"]


GLOBALS = """
@arr = global [2 x double] zeroinitializer, !enzyme_shadow !0
@d_arr = global [2 x double] zeroinitializer
@last = global double 0.0
@__enzyme_inactive_global_last = global ptr @last
declare double @llvm.sin.f64(double)
define double @f(double %x) {
  store double %x, ptr @last
  %a1 = load double, ptr getelementptr inbounds (i8, ptr @arr, i64 8)
  %s = call double @llvm.sin.f64(double %x)
  %m = fmul double %a1, %s
  store double %m, ptr getelementptr inbounds (i8, ptr @arr, i64 8)
  %again = load double, ptr getelementptr inbounds (i8, ptr @arr, i64 8)
  %r = fmul double %again, %x
  ret double %r
}
!0 = !{ptr @d_arr}
"""


def test_global_with_shadow_through_constant_addresses() -> None:
    out = run_ad_stage(HEAD + AUTODIFF + GLOBALS + """
define double @grad(double %x) {
  %r = call double (...) @__enzyme_autodiff(ptr @f, metadata !"enzyme_out", double %x)
  ret double %r
}
""")
    engine = compile_ir(out)
    arr = (D * 2).from_address(engine.get_global_value_address("arr"))
    d_arr = (D * 2).from_address(engine.get_global_value_address("d_arr"))
    a1, x = 1.75, 0.9
    arr[1], d_arr[1] = a1, 0.0
    dx = function(engine, "grad", D, D)(x)
    # r = a1 * sin(x) * x
    assert dx == pytest.approx(a1 * (math.cos(x) * x + math.sin(x)), rel=1e-14)
    assert d_arr[1] == pytest.approx(math.sin(x) * x, rel=1e-14)
    assert arr[1] == pytest.approx(a1 * math.sin(x), rel=1e-14)  # the primal update happened


def test_active_store_into_unmarked_global_is_an_error_without_auto_shadows() -> None:
    body = GLOBALS.replace("@__enzyme_inactive_global_last = global ptr @last\n", "")
    with pytest.raises(ADError) as info:
        scalar_gradient(body, 1.0, options=ADOptions(auto_shadow=False))
    assert "global 'last'" in str(info.value) and "shadow" in str(info.value)


def test_active_store_into_unmarked_global_gets_a_shadow_of_its_own() -> None:
    """`last` (written, never read back) gets enzc's shadow; the gradient is unchanged."""
    body = GLOBALS.replace("@__enzyme_inactive_global_last = global ptr @last\n", "")
    marked = scalar_gradient(GLOBALS, 0.9)
    assert scalar_gradient(body, 0.9) == marked
    assert "@last.enzc_shadow = internal global double zeroinitializer" in run_ad_stage(
        HEAD + AUTODIFF + body + 'define double @g(double %x) {\n  %r = call double (...) @__enzyme_autodiff('
        'ptr @f, metadata !"enzyme_out", double %x)\n  ret double %r\n}\n')


def test_print_cache_reports_sizes_and_formulas() -> None:
    m = parse_module(HEAD + AUTODIFF + """
declare double @llvm.sin.f64(double)
define double @f(ptr %x, i64 %n) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i1, %loop ]
  %s = phi double [ 1.0, %entry ], [ %s1, %loop ]
  %p = getelementptr inbounds double, ptr %x, i64 %i
  %v = load double, ptr %p
  %t = call double @llvm.sin.f64(double %s)
  %s1 = fmul double %t, %v
  store double 0.0, ptr %p
  %i1 = add nuw i64 %i, 1
  %more = icmp ult i64 %i1, %n
  br i1 %more, label %loop, label %done
done:
  ret double %s1
}
define void @grad(ptr %x, ptr %dx, i64 %n) {
  %r = call double (...) @__enzyme_autodiff(ptr @f, ptr %x, ptr %dx, metadata !"enzyme_const", i64 %n)
  ret void
}
""", lazy=True)
    err = io.StringIO()
    lower_module(m, print_cache=True, err=err)
    text = err.getvalue()
    assert "; diffe_f: " in text and "cached values" in text
    assert ".cache: double (8 bytes) x n(%loop) = 8*n(%loop) bytes, allocated once per call" in text
    assert "where n(%loop) = iterations from 0 step 1 while the incremented counter ult %n (exact)" in text
