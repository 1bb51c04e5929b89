// An active indirect call in a function that also calls libm functions whose names
// extend other libm functions' names (cosh/cos, sinh/sin, tanh/tan, atan2/atanh/atan,
// log1p/log2/log10/log, exp2/expm1/exp, asinh/asin, acosh/acos, erfc/erf, and every
// float form, itself an extension: sinf/sin, ...). Only user functions have their
// address taken, so the call may reach only them: a direct call of `cosh` is not a
// use of `cos` as a value (it was, by a text match, and the program was rejected as
// "may call cos, which has no body"). Analytic derivatives (float code: rel 1e-6).
// tol: rel=1e-6 abs=1e-9
// grads: 4
#include <math.h>
#include <stdio.h>

extern int enzyme_dup, enzyme_const, enzyme_out;
double __enzyme_autodiff(void *, ...);
float __enzyme_autodifff(void *, ...) __asm__("__enzyme_autodiff");

__attribute__((noinline)) static double sq(double x) { return x * x; }
__attribute__((noinline)) static double cube(double x) { return x * x * x; }
static double (*const volatile table[2])(double) = {sq, cube};
__attribute__((noinline)) static float sqf(float x) { return x * x; }
__attribute__((noinline)) static float halff(float x) { return 0.5f * x; }
static float (*const volatile tablef[2])(float) = {sqf, halff};

static double libm_sum(double x) {
    return cosh(x) + cos(x) + sinh(x) + sin(x) + tanh(x) + tan(x) + atan2(x, 2.0) + atanh(0.5 * x) + atan(x)
         + log1p(x) + log2(x) + log10(x) + log(x) + exp2(x) + expm1(x) + exp(x) + asinh(x) + asin(0.5 * x)
         + acosh(1 + x) + acos(0.5 * x) + erfc(x) + erf(x);
}

static double libm_sum_derivative(double x) {
    return sinh(x) - sin(x) + cosh(x) + cos(x) + 1 / (cosh(x) * cosh(x)) + 1 / (cos(x) * cos(x))
         + 2 / (x * x + 4) + 0.5 / (1 - 0.25 * x * x) + 1 / (1 + x * x) + 1 / (1 + x) + 1 / (x * log(2.0))
         + 1 / (x * log(10.0)) + 1 / x + log(2.0) * exp2(x) + 2 * exp(x) + 1 / sqrt(x * x + 1)
         + 0.5 / sqrt(1 - 0.25 * x * x) + 1 / sqrt((1 + x) * (1 + x) - 1) - 0.5 / sqrt(1 - 0.25 * x * x);
}

static float libm_sumf(float x) {
    return coshf(x) + cosf(x) + sinhf(x) + sinf(x) + tanhf(x) + tanf(x) + atan2f(x, 2.0f) + atanhf(0.5f * x)
         + atanf(x) + log1pf(x) + log2f(x) + log10f(x) + logf(x) + exp2f(x) + expm1f(x) + expf(x) + asinhf(x)
         + asinf(0.5f * x) + acoshf(1 + x) + acosf(0.5f * x) + erfcf(x) + erff(x);
}

double f(double x, int k) { return table[k](x) * libm_sum(x); }
float g(float x, int k) { return tablef[k](x) * libm_sumf(x); }

int main(void) {
    for (int k = 0; k < 2; k++) {
        double x = 0.6;
        double d = __enzyme_autodiff((void *)f, enzyme_out, x, enzyme_const, k);
        double t = k ? x * x * x : x * x, dt = k ? 3 * x * x : 2 * x;
        printf("grad df/dx[k=%d] %.17g %.17g\n", k, d, dt * libm_sum(x) + t * libm_sum_derivative(x));
        float y = 0.6f;
        float e = __enzyme_autodifff((void *)g, enzyme_out, y, enzyme_const, k);
        double u = k ? 0.5 * y : (double)y * y, du = k ? 0.5 : 2.0 * y;
        double want = du * libm_sumf(y) + u * libm_sum_derivative(y);
        printf("grad dg/dx[k=%d] %.17g %.17g\n", k, (double)e, want);
    }
    return 0;
}
