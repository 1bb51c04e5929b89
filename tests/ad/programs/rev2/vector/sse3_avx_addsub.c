// SSE3's `_mm_addsub_pd`/`_mm_addsub_ps` (even lanes subtract, odd lanes add: the
// complex and quaternion products of SIMD code), which stay `llvm.x86.sse3.addsub.*`
// calls, and AVX's `_mm256_addsub_pd`; each was "cannot differentiate call to
// external function" before session 29. Reverse and forward mode.
// Reference: central finite differences (the float function: of its double twin).
// tol: rel=1e-6 abs=1e-8
// grads: 12
// flags: -msse3 -mavx
// cpu: pni avx
#include <immintrin.h>
#include <stdio.h>
#include <string.h>

double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);
extern int enzyme_dup;

double f(const double *x) {
    __m128d a = _mm_loadu_pd(x), b = _mm_mul_pd(_mm_loadu_pd(x + 2), a);
    __m128d c = _mm_addsub_pd(a, b);
    __m256d p = _mm256_loadu_pd(x), q = _mm256_mul_pd(p, p);
    __m256d r = _mm256_addsub_pd(q, _mm256_permute_pd(p, 0x5));
    double s = c[0] * 3 + c[1] * 5;
    for (int i = 0; i < 4; i++) s += r[i] * (i + 1);
    return s;
}

float g(const float *x) {
    __m128 a = _mm_loadu_ps(x), b = _mm_mul_ps(_mm_shuffle_ps(a, a, 0x1b), a);
    __m128 c = _mm_addsub_ps(a, b);
    return c[0] * c[0] + 2 * c[1] + 3 * c[2] * c[3];
}

double g_in_double(const double *x) {  /* g's arithmetic in double: its FD reference */
    double b[4] = {x[3] * x[0], x[2] * x[1], x[1] * x[2], x[0] * x[3]};
    double c[4] = {x[0] - b[0], x[1] + b[1], x[2] - b[2], x[3] + b[3]};
    return c[0] * c[0] + 2 * c[1] + 3 * c[2] * c[3];
}

int main(void) {
    double x[4] = {0.4, -0.9, 1.3, 0.25}, dx[4] = {0};
    float xf[4] = {0.4f, -0.9f, 1.3f, 0.25f}, dxf[4] = {0};
    __enzyme_autodiff((void *)f, enzyme_dup, x, dx);
    __enzyme_autodiff((void *)g, enzyme_dup, xf, dxf);
    for (int i = 0; i < 4; i++) {
        double plus[4], minus[4], seed[4] = {0}, h = 1e-6;
        memcpy(plus, x, sizeof x);
        memcpy(minus, x, sizeof x);
        plus[i] += h;
        minus[i] -= h;
        seed[i] = 1;
        double fd = (f(plus) - f(minus)) / (2 * h);
        printf("grad rev_x%d %.17g %.17g\n", i, dx[i], fd);
        printf("grad fwd_x%d %.17g %.17g\n", i, __enzyme_fwddiff((void *)f, enzyme_dup, x, seed), fd);
        for (int k = 0; k < 4; k++) plus[k] = minus[k] = xf[k];
        plus[i] += h;
        minus[i] -= h;
        printf("grad float_x%d %.17g %.17g\n", i, (double)dxf[i], (g_in_double(plus) - g_in_double(minus)) / (2 * h));
    }
    return 0;
}
