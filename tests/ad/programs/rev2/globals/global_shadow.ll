; An active global with a shadow: @state has `!enzyme_shadow !{ptr @d_state}`. The
; function reads the state, updates it with an active value and returns a result of
; the new state; the reverse pass accumulates d/d(state at entry) into @d_state.
; tol: rel=1e-12 abs=1e-14
; grads: 6
; sources: global_shadow_main.c

target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

@state = global double 0.0, align 8, !enzyme_shadow !0
@d_state = global double 0.0, align 8

; state = state * x + sin(x); return state * state
define double @step(double %x) {
  %s0 = load double, ptr @state, align 8
  %m = fmul double %s0, %x
  %sx = call double @sin(double %x)
  %s1 = fadd double %m, %sx
  store double %s1, ptr @state, align 8
  %again = load double, ptr @state, align 8
  %r = fmul double %again, %s1
  ret double %r
}

declare double @sin(double)
declare double @__enzyme_autodiff(...)

define double @grad_step(double %x) {
  %d = call double (...) @__enzyme_autodiff(ptr @step, metadata !"enzyme_out", double %x)
  ret double %d
}

!0 = !{ptr @d_state}
