; Hand-written LLVM 22 IR passing argument classes as metadata operands
; (metadata !"enzyme_dup", ...), the form other front ends emit; main is in C.
; tol: rel=1e-12 abs=1e-14
; grads: 9
; sources: metadata_markers_main.c

target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

; sum_i x[i]^3
define double @cube_sum(ptr %x, i64 %n) {
entry:
  br label %loop

loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %s = phi double [ 0.0, %entry ], [ %s.next, %loop ]
  %p = getelementptr inbounds double, ptr %x, i64 %i
  %v = load double, ptr %p, align 8
  %v2 = fmul double %v, %v
  %v3 = fmul double %v2, %v
  %s.next = fadd double %s, %v3
  %i.next = add nuw i64 %i, 1
  %more = icmp ult i64 %i.next, %n
  br i1 %more, label %loop, label %exit

exit:
  ret double %s.next
}

; exp(x * a)
define double @scaled_exp(double %x, double %a) {
  %m = fmul double %x, %a
  %e = call double @llvm.exp.f64(double %m)
  ret double %e
}

; x * y + sin(x)
define double @two_outs(double %x, double %y) {
  %m = fmul double %x, %y
  %s = call double @sin(double %x)
  %r = fadd double %m, %s
  ret double %r
}

declare double @llvm.exp.f64(double)
declare double @sin(double)
declare void @__enzyme_autodiff_void(...)
declare double @__enzyme_autodiff(...)
declare { double, double } @__enzyme_autodiff_pair(...)

define void @grad_cube_sum(ptr %x, ptr %dx, i64 %n) {
  call void (...) @__enzyme_autodiff_void(ptr @cube_sum, metadata !"enzyme_dup", ptr %x, ptr %dx, metadata !"enzyme_const", i64 %n)
  ret void
}

define double @grad_scaled_exp(double %x, double %a) {
  %r = call double (...) @__enzyme_autodiff(ptr @scaled_exp, metadata !"enzyme_out", double %x, metadata !"enzyme_const", double %a)
  ret double %r
}

define void @grad_two_outs(double %x, double %y, ptr %out) {
  %r = call { double, double } (...) @__enzyme_autodiff_pair(ptr @two_outs, metadata !"enzyme_out", double %x, metadata !"enzyme_out", double %y)
  %dx = extractvalue { double, double } %r, 0
  %dy = extractvalue { double, double } %r, 1
  store double %dx, ptr %out, align 8
  %out1 = getelementptr inbounds double, ptr %out, i64 1
  store double %dy, ptr %out1, align 8
  ret void
}
