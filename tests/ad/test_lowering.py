"""Call-site lowering: markers, defaults, ABI shapes and errors, on small IR modules.

Each lowered module must be accepted by llvm-as; the numbers themselves are checked
end to end by the gradient programs."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from enzc.ad import ADError, ADOptions, run_ad_stage

HEAD = """target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"
"""

SQUARE = """
define internal double @square(double %x) {
entry:
  %m = fmul double %x, %x
  ret double %m
}
"""

SUM = """
define double @sum(ptr %a, i32 %n, double %k) {
entry:
  %w = zext i32 %n to i64
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %s = phi double [ 0.0, %entry ], [ %s.next, %loop ]
  %p = getelementptr inbounds double, ptr %a, i64 %i
  %v = load double, ptr %p
  %s.next = fadd double %s, %v
  %i.next = add nuw nsw i64 %i, 1
  %more = icmp ult i64 %i.next, %w
  br i1 %more, label %loop, label %exit
exit:
  %r = fmul double %s.next, %k
  ret double %r
}
"""


def lower(body: str) -> str:
    out = run_ad_stage(HEAD + body, ADOptions())
    if shutil.which("llvm-as-22"):
        r = subprocess.run(["llvm-as-22", "-o", "/dev/null", "-"], input=out, capture_output=True, text=True)
        assert r.returncode == 0, r.stderr + "\n" + out
    return out


def test_module_without_entry_points_is_returned_unchanged() -> None:
    text = HEAD + SQUARE
    assert run_ad_stage(text) is text


def test_marker_loads_and_declared_markers_disappear() -> None:
    out = lower(SQUARE + """
@enzyme_out = external global i32
declare double @__enzyme_autodiff(ptr, ...)
define double @main_grad(double %x) {
entry:
  %m = load i32, ptr @enzyme_out
  %d = call double (ptr, ...) @__enzyme_autodiff(ptr @square, i32 %m, double %x)
  ret double %d
}
""")
    assert "@enzyme_out" not in out
    assert "call double (ptr, ...) @__enzyme_autodiff" not in out
    assert "call double @diffe_square(double %x)" in out


def test_defaults_and_metadata_markers() -> None:
    out = lower(SUM + """
declare double @__enzyme_autodiff(ptr, ...)
define double @g(ptr %a, ptr %da, i32 %n, double %k) {
entry:
  %d1 = call double (ptr, ...) @__enzyme_autodiff(ptr @sum, ptr %a, ptr %da, i32 %n, double %k)
  %d2 = call double (ptr, ...) @__enzyme_autodiff(ptr @sum, metadata !"enzyme_dup", ptr %a, ptr %da,
                                                  metadata !"enzyme_const", i32 %n, metadata !"enzyme_out", double %k)
  %s = fadd double %d1, %d2
  ret double %s
}
""")
    # both calls have the same signature (dup, const, out): one derivative, two calls
    assert out.count("define internal double @diffe_sum(") == 1
    assert out.count("call double @diffe_sum(ptr %a, ptr %da, i32 %n, double %k)") == 2


def test_constant_markers_map_back_through_initializers() -> None:
    out = lower(SUM + """
@enzyme_dup = global i32 1
@enzyme_const = global i32 2
@enzyme_out = global i32 3
declare double @__enzyme_autodiff(ptr, ...)
define double @g(ptr %a, ptr %da, i32 %n, double %k) {
entry:
  %d = call double (ptr, ...) @__enzyme_autodiff(ptr @sum, i32 1, ptr %a, ptr %da, i32 2, i32 %n, i32 3, double %k)
  ret double %d
}
""")
    assert "call double @diffe_sum(ptr %a, ptr %da, i32 %n, double %k)" in out


def test_variadic_float_promotion_is_undone() -> None:
    out = lower("""
define float @f(float %x) {
entry:
  %m = fmul float %x, %x
  ret float %m
}
declare float @__enzyme_autodiff(ptr, ...)
define float @g(float %x) {
entry:
  %p = fpext float %x to double
  %d = call float (ptr, ...) @__enzyme_autodiff(ptr @f, double %p)
  ret float %d
}
""")
    assert "fptrunc double %p to float" in out
    assert "call float @diffe_f(float" in out


def test_sret_result_is_stored_through_the_pointer() -> None:
    out = lower("""
define double @f(double %x, double %y, double %z) {
entry:
  %a = fmul double %x, %y
  %b = fmul double %a, %z
  ret double %b
}
%T = type { double, double, double }
declare void @__enzyme_autodiff3(ptr sret(%T), ptr, ...)
define void @g(ptr %out, double %x, double %y, double %z) {
entry:
  call void (ptr, ptr, ...) @__enzyme_autodiff3(ptr sret(%T) %out, ptr @f, double %x, double %y, double %z)
  ret void
}
""")
    assert "call { double, double, double } @diffe_f(double %x, double %y, double %z)" in out
    assert out.count("store double") >= 3


def test_small_struct_result_is_coerced() -> None:
    out = lower("""
define float @f(float %x, float %y) {
entry:
  %a = fmul float %x, %y
  ret float %a
}
declare <2 x float> @__enzyme_autodiff_pair(ptr, ...)
define <2 x float> @g(float %x, float %y) {
entry:
  %px = fpext float %x to double
  %py = fpext float %y to double
  %d = call <2 x float> (ptr, ...) @__enzyme_autodiff_pair(ptr @f, double %px, double %py)
  ret <2 x float> %d
}
""")
    assert "load <2 x float>" in out


@pytest.mark.parametrize(("call", "words"), [
    ("(ptr @square)", "too few arguments"),
    ("(ptr @square, double %x, double %x)", "too many arguments"),
    ("(ptr @square, i32 %dup, double %x, double %x)", "not a pointer"),
    ("(ptr @nobody, double %x)", "body is not available"),
])
def test_bad_calls_are_errors(call: str, words: str) -> None:
    with pytest.raises(ADError, match=words):
        run_ad_stage(HEAD + SQUARE + f"""
@enzyme_dup = external global i32
declare double @__enzyme_autodiff(ptr, ...)
declare double @nobody(double)
define double @g(double %x) {{
entry:
  %dup = load i32, ptr @enzyme_dup
  %d = call double (ptr, ...) @__enzyme_autodiff{call}
  ret double %d
}}
""")


def test_print_flags_show_activity_gradient_and_caches() -> None:
    import io

    from enzc.ad.pipeline import lower_module
    from enzc.ir import parse_module

    module = parse_module(HEAD + SUM + """
declare double @__enzyme_autodiff(ptr, ...)
define double @g(ptr %a, ptr %da, i32 %n, double %k) {
entry:
  %d = call double (ptr, ...) @__enzyme_autodiff(ptr @sum, ptr %a, ptr %da, i32 %n, double %k)
  ret double %d
}
""")
    err = io.StringIO()
    assert lower_module(module, print_activity=True, print_gradient=True, print_cache=True, err=err) == 1
    text = err.getvalue()
    assert "; activity of sum (dup, const, out) -> active" in text
    assert "active %v\n" in text and "inactive %i.next\n" in text
    assert "define internal double @diffe_sum(ptr %a, ptr %d_a, i32 %n, double %k)" in text
    assert "; diffe_sum: 0 cached values" in text


def test_unknown_external_function_is_a_clear_error() -> None:
    with pytest.raises(ADError) as info:
        run_ad_stage(HEAD + """
declare double @mystery(double)
define double @f(double %x) {
entry:
  %y = call double @mystery(double %x)
  %z = fmul double %y, %x
  ret double %z
}
declare double @__enzyme_autodiff(ptr, ...)
define double @g(double %x) {
entry:
  %d = call double (ptr, ...) @__enzyme_autodiff(ptr @f, double %x)
  ret double %d
}
""")
    lines = str(info.value).splitlines()
    assert lines[0] == "error: enzc: cannot differentiate call to external function 'mystery' (double mystery(double))"
    assert lines[1] == "note: in function 'f': %y = call double @mystery(double %x)"
    assert lines[2].startswith("hint: provide a custom derivative (__enzyme_register_gradient_mystery)")


def test_inactive_external_call_is_fine() -> None:
    out = lower("""
declare double @mystery(double)
define double @f(double %x, double %c) {
entry:
  %y = call double @mystery(double %c)
  %z = fmul double %y, %x
  ret double %z
}
@enzyme_const = external global i32
declare double @__enzyme_autodiff(ptr, ...)
define double @g(double %x, double %c) {
entry:
  %m = load i32, ptr @enzyme_const
  %d = call double (ptr, ...) @__enzyme_autodiff(ptr @f, double %x, i32 %m, double %c)
  ret double %d
}
""")
    assert "@diffe_f(double %x, double %c)" in out


def test_irreducible_loop_is_rejected() -> None:
    with pytest.raises(ADError, match="irreducible"):
        run_ad_stage(HEAD + """
define double @f(double %x, i1 %c) {
entry:
  br i1 %c, label %a, label %b
a:
  %xa = phi double [ %x, %entry ], [ %xb2, %b ]
  %xa2 = fmul double %xa, 0.5
  %ca = fcmp olt double %xa2, 1.0
  br i1 %ca, label %done, label %b
b:
  %xb = phi double [ %x, %entry ], [ %xa2, %a ]
  %xb2 = fmul double %xb, 0.25
  %cb = fcmp olt double %xb2, 1.0
  br i1 %cb, label %done, label %a
done:
  %r = phi double [ %xa2, %a ], [ %xb2, %b ]
  ret double %r
}
@enzyme_const = external global i32
declare double @__enzyme_autodiff(ptr, ...)
define double @g(double %x, i1 %c) {
entry:
  %m = load i32, ptr @enzyme_const
  %d = call double (ptr, ...) @__enzyme_autodiff(ptr @f, double %x, i32 %m, i1 %c)
  ret double %d
}
""")
