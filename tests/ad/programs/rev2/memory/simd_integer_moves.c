// Doubles moved and sign-changed as integer bits, as SIMD code and the optimizer
// write them: `_mm_loadu_si128`/`_mm_storeu_si128` copies of doubles, `_mm_xor_si128`
// with the sign bit (negation), `_mm_and_si128` with all other bits (absolute value,
// also as a scalar `uint64_t` read by memcpy), and a scale found by `maxpd` over
// absolute values whose loaded integer bits are reused, bitcast, as the doubles
// divided (the shape of Eigen's JacobiSVD after the optimizer: `load <2 x i64>`, an
// `and` for the absolute values, and a `bitcast` of the same load). Integer loads
// of shadowed memory whose bits became doubles, and integer vector stores, carried
// no derivative: the gradient was zero, silently (ClangEnzyme-19 copies right and
// stops at the bits made doubles: "Cannot deduce adding type (cast)"). Reverse and
// forward mode.
// Reference: central finite differences.
// tol: rel=1e-6 abs=1e-8
// grads: 8
#include <emmintrin.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);
extern int enzyme_dup, enzyme_const;

__attribute__((noinline)) static void copy_and_negate(double *d, const double *s, int n) {
    for (int i = 0; i < n; i += 2) {
        __m128i v = _mm_loadu_si128((const __m128i *)(s + i));
        _mm_storeu_si128((__m128i *)(d + i), v);
        _mm_storeu_si128((__m128i *)(d + n + i), _mm_xor_si128(v, _mm_set1_epi64x((long long)0x8000000000000000ULL)));
    }
}

__attribute__((noinline)) static void scaled_by_largest(double *out, const double *m) {
    __m128i v = _mm_load_si128((const __m128i *)m);
    __m128d magnitude = _mm_castsi128_pd(_mm_and_si128(v, _mm_set1_epi64x(0x7fffffffffffffffLL)));
    __m128d w = _mm_load_pd(m + 2);
    __m128d mx = _mm_max_pd(magnitude, _mm_and_pd(w, _mm_castsi128_pd(_mm_set1_epi64x(0x7fffffffffffffffLL))));
    double s = mx[0] > mx[1] ? mx[0] : mx[1];
    __m128d scale = _mm_set1_pd(s);
    _mm_store_pd(out, _mm_div_pd(_mm_castsi128_pd(v), scale));
    _mm_store_pd(out + 2, _mm_div_pd(w, scale));
}

__attribute__((noinline)) static double magnitude_by_bits(const double *p) {
    uint64_t b;
    memcpy(&b, p, sizeof b);
    b &= 0x7fffffffffffffffULL;
    double r;
    memcpy(&r, &b, sizeof r);
    return r;
}

double f(const double *x) {
    double a[4] __attribute__((aligned(16))), b[8], o[4] __attribute__((aligned(16)));
    for (int i = 0; i < 4; i++) a[i] = x[i] * x[i] - 0.5 * x[(i + 1) % 4];
    copy_and_negate(b, a, 4);
    scaled_by_largest(o, a);
    double s = magnitude_by_bits(a + 1) * 3;
    for (int i = 0; i < 8; i++) s += b[i] * (i + 1) * 0.1;
    for (int i = 0; i < 4; i++) s += o[i] * (i + 2);
    return s;
}

int main(void) {
    enum { N = 4 };
    double x[N] = {0.3, -0.5, 0.9, 2.0}, dx[N] = {0};
    __enzyme_autodiff((void *)f, enzyme_dup, x, dx);
    for (int k = 0; k < N; k++) {
        double xp[N], xm[N], t[N] = {0}, h = 1e-6;
        memcpy(xp, x, sizeof x);
        memcpy(xm, x, sizeof x);
        xp[k] += h;
        xm[k] -= h;
        t[k] = 1;
        double fd = (f(xp) - f(xm)) / (2 * h);
        printf("grad x%d %.17g %.17g\n", k, dx[k], fd);
        printf("grad fwd_x%d %.17g %.17g\n", k, __enzyme_fwddiff((void *)f, enzyme_dup, x, t), fd);
    }
    return 0;
}
