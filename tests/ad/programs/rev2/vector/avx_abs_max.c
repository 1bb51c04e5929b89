// Absolute values by AVX `_mm256_and_pd` with a mask, stored, and their running
// `_mm256_max_pd`, reduced over the two halves: the optimizer loads the doubles as
// `<4 x i64>` for the mask, and that integer load carried no derivative: every
// gradient entry was zero, silently, before session 29 (docs/ad.md, "Integer
// moves"). Reverse mode.
// Reference: central finite differences.
// tol: rel=1e-6 abs=1e-8
// grads: 8
// flags: -mavx2
// cpu: avx avx2
#include <immintrin.h>
#include <stdio.h>
#include <string.h>
extern double __enzyme_autodiff(void *, ...);
extern int enzyme_dup;
__attribute__((noinline)) static void absmax(double *out, const double *in, int n) {
  __m256d mask = _mm256_castsi256_pd(_mm256_set1_epi64x(0x7fffffffffffffffLL));
  __m256d m = _mm256_setzero_pd();
  for (int i = 0; i < n; i += 4) {
    __m256d v = _mm256_loadu_pd(in + i);
    __m256d a = _mm256_and_pd(v, mask);
    _mm256_storeu_pd(out + i, a);
    m = _mm256_max_pd(m, a);
  }
  __m128d lo = _mm256_castpd256_pd128(m), hi = _mm256_extractf128_pd(m, 1);
  __m128d mm = _mm_max_pd(lo, hi);
  out[n] = mm[0] > mm[1] ? mm[0] : mm[1];
}
double f(const double *x) {
  double t[8], o[9];
  for (int i = 0; i < 8; i++) t[i] = x[i] * x[(i + 3) % 8] - 0.3;
  absmax(o, t, 8);
  double s = 0;
  for (int i = 0; i < 9; i++) s += o[i] * (i + 1);
  return s;
}
int main(void) {
  double x[8] = {0.3, -0.9, 1.2, 0.6, -1.4, 0.35, 0.8, -0.55}, dx[8] = {0};
  __enzyme_autodiff((void *)f, enzyme_dup, x, dx);
  for (int k = 0; k < 8; k++) {
    double xp[8], xm[8], h = 1e-6; memcpy(xp, x, sizeof x); memcpy(xm, x, sizeof x); xp[k] += h; xm[k] -= h;
    printf("grad x%d %.17g %.17g\n", k, dx[k], (f(xp) - f(xm)) / (2 * h));
  }
}
