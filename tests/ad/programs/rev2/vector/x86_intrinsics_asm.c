// Hand-vectorized code: SSE/AVX intrinsics that clang keeps as x86 calls
// (horizontal adds and subtracts, max/min packed and scalar, variable blends) and
// one-instruction FMA inline asm as Eigen writes it (`vfmadd231pd`, and the 213 and
// 132 forms, negated and scalar ones). Each is rewritten as generic IR in the copy
// being differentiated (`synth/x86_intrinsics.py`, `synth/known_asm.py`); they were
// "cannot differentiate call to external function 'llvm.x86.avx.hadd.pd.256'" and
// "inline assembly that may be active". Reverse and forward mode. (The float forms
// are checked in tests/ad/test_x86_intrinsics.py: differences of float sums are too
// coarse for finite differences.)
// Reference: central finite differences.
// tol: rel=1e-6 abs=1e-8
// grads: 32
// flags: -mavx2 -mfma
// cpu: avx avx2 fma
#include <immintrin.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

#define N 16

static inline __m256d fmadd231(__m256d a, __m256d b, __m256d c) {  // c + a*b
    __asm__("vfmadd231pd %[a], %[b], %[c]" : [c] "+v"(c) : [a] "v"(a), [b] "v"(b));
    return c;
}

static inline __m128d fmsub132(__m128d a, __m128d b, __m128d c) {  // a*b - c
    __asm__("vfmsub132pd %[b], %[c], %[a]" : [a] "+x"(a) : [b] "x"(b), [c] "x"(c));
    return a;
}

static inline __m256d fnmadd213(__m256d a, __m256d b, __m256d c) {  // c - b*a
    __asm__("vfnmadd213pd %[c], %[b], %[a]" : [a] "+x"(a) : [b] "x"(b), [c] "x"(c));
    return a;
}

static inline double fnmsub231_scalar(double a, double b, double c) {  // -(a*b) - c
    __asm__("vfnmsub231sd %[a], %[b], %[c]" : [c] "+x"(c) : [a] "x"(a), [b] "x"(b));
    return c;
}

static inline double sum4(__m256d v) {  // Eigen's predux: two horizontal adds
    __m256d h = _mm256_hadd_pd(v, v);
    return _mm_cvtsd_f64(_mm_add_pd(_mm256_castpd256_pd128(h), _mm256_extractf128_pd(h, 1)));
}

double f(const double *x) {
    __m256d a = _mm256_loadu_pd(x), b = _mm256_loadu_pd(x + 4);
    __m256d c = _mm256_loadu_pd(x + 8), d = _mm256_loadu_pd(x + 12);
    __m256d acc = fmadd231(a, b, _mm256_mul_pd(c, c));
    acc = _mm256_add_pd(acc, fnmadd213(d, a, b));
    __m256d top = _mm256_max_pd(a, _mm256_mul_pd(d, _mm256_set1_pd(0.5)));
    __m256d low = _mm256_min_pd(b, c);
    __m256d picked = _mm256_blendv_pd(top, low, _mm256_sub_pd(a, c));  // low where a < c
    __m256d diffs = _mm256_hsub_pd(picked, acc);
    __m128d lo = _mm256_castpd256_pd128(a), hi = _mm256_extractf128_pd(c, 1);
    __m128d m = fmsub132(lo, hi, _mm_hadd_pd(lo, hi));
    __m128d s = _mm_max_sd(m, _mm256_castpd256_pd128(d));
    double e = fnmsub231_scalar(x[3], x[9], x[14]);
    return sum4(acc) + sum4(diffs) * sum4(picked) + _mm_cvtsd_f64(s) * _mm_cvtsd_f64(_mm_unpackhi_pd(m, m))
           + sin(e);
}

double f_fwd(const double *x, const double *dx) { return __enzyme_fwddiff((void *)f, enzyme_dup, x, dx); }

int main(void) {
    double x[N], dx[N] = {0};
    for (int i = 0; i < N; i++) x[i] = 0.4 + 0.35 * sin(1.7 * i + 0.3) + 0.05 * i;
    x[2] = 1.5;  // a > c in lane 2, a < c elsewhere: blendv picks both ways
    __enzyme_autodiff((void *)f, enzyme_dup, x, dx);
    for (int i = 0; i < N; i++) {
        double e[N] = {0}, xp[N], xm[N];
        memcpy(xp, x, sizeof x);
        memcpy(xm, x, sizeof x);
        double h = 1e-6;
        xp[i] += h;
        xm[i] -= h;
        double fd = (f(xp) - f(xm)) / (2 * h);
        e[i] = 1;
        printf("grad rev_x%d %.17g %.17g\n", i, dx[i], fd);
        printf("grad fwd_x%d %.17g %.17g\n", i, f_fwd(x, e), fd);
    }
    return 0;
}
