; The seeds' custom-derivative example in IR: @add2 is only declared here, with
; !enzyme_augment / !enzyme_gradient naming its rules; its body lives in a plain
; (non-bitcode) object, so the rules are the only way to differentiate it.
; tol: rel=1e-12 abs=1e-14
; grads: 3
; sources: add2_metadata_main.c
; objects: add2_impl.c

target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

declare !enzyme_augment !0 !enzyme_gradient !1 double @add2(double)

define { {}, double } @augment_add2(double %x) {
  %p = call double @add2(double %x)
  %r = insertvalue { {}, double } undef, double %p, 1
  ret { {}, double } %r
}

define { double } @gradient_add2(double %x, double %differet, {} %tape) {
  %r = insertvalue { double } undef, double %differet, 0
  ret { double } %r
}

; x * add2(x * x)
define double @tester(double %x) {
  %sq = fmul double %x, %x
  %a = call double @add2(double %sq)
  %r = fmul double %a, %x
  ret double %r
}

declare double @__enzyme_autodiff(...)

define double @grad_tester(double %x) {
  %d = call double (...) @__enzyme_autodiff(ptr @tester, metadata !"enzyme_out", double %x)
  ret double %d
}

!0 = !{ptr @augment_add2}
!1 = !{ptr @gradient_add2}
