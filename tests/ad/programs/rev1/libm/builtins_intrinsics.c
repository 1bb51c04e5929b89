// Clang builtins that become LLVM intrinsics directly (llvm.sqrt, llvm.fabs,
// llvm.maxnum, llvm.minnum, llvm.copysign, llvm.floor, llvm.exp, llvm.log,
// llvm.pow, llvm.fma) composed in one function, gradient by array shadow.
// tol: rel=1e-12 abs=1e-14
// grads: 3
#include <math.h>
#include <stdio.h>

extern int enzyme_dup;
void __enzyme_autodiff(void *, ...);

double combo(const double *v) {
    double a = v[0], b = v[1], c = v[2];
    double s = __builtin_sqrt(a * a + 1.0) + __builtin_fabs(b) * c;
    s += __builtin_fmax(a, b) * __builtin_fmin(b, c);
    s += __builtin_copysign(c, a) + __builtin_floor(c) * a;
    s += __builtin_exp(a * 0.5) * __builtin_log(c) + __builtin_pow(c, b);
    return __builtin_fma(s, a, b);
}

int main(void) {
    double v[3] = {0.8, -0.6, 2.4}, dv[3] = {0, 0, 0};
    __enzyme_autodiff((void *)combo, enzyme_dup, v, dv);
    double a = v[0], b = v[1], c = v[2];
    /* a > b, b < c: fmax -> a, fmin -> b; |b| = -b; copysign(c, a>0) = c */
    double s = sqrt(a * a + 1) + fabs(b) * c + a * b + c + floor(c) * a
               + exp(a * 0.5) * log(c) + pow(c, b);
    double ds_da = a / sqrt(a * a + 1) + b + floor(c) + 0.5 * exp(a * 0.5) * log(c);
    double ds_db = -c + a + pow(c, b) * log(c);
    double ds_dc = fabs(b) + 1 + exp(a * 0.5) / c + b * pow(c, b - 1);
    printf("grad da %.17g %.17g\n", dv[0], ds_da * a + s);
    printf("grad db %.17g %.17g\n", dv[1], ds_db * a + 1);
    printf("grad dc %.17g %.17g\n", dv[2], ds_dc * a);
    return 0;
}
