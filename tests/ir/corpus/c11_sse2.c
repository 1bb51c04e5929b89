/* SSE2 intrinsics from <immintrin.h>: loads/stores (aligned and unaligned), packed
   double and integer arithmetic, shuffles, compares and movemask; the headers
   expand into plain IR vector operations and a few x86 intrinsics. */
#include <immintrin.h>
#include <stdio.h>

static double dot_sse2(const double *a, const double *b, int n) {
    __m128d acc = _mm_setzero_pd();
    int i = 0;
    for (; i + 2 <= n; i += 2)
        acc = _mm_add_pd(acc, _mm_mul_pd(_mm_loadu_pd(a + i), _mm_loadu_pd(b + i)));
    __m128d hi = _mm_unpackhi_pd(acc, acc);
    double s = _mm_cvtsd_f64(_mm_add_sd(acc, hi));
    for (; i < n; i++)
        s += a[i] * b[i];
    return s;
}

static void scale_inplace(double *x, int n, double k) {
    __m128d kk = _mm_set1_pd(k);
    for (int i = 0; i + 2 <= n; i += 2)
        _mm_storeu_pd(x + i, _mm_mul_pd(_mm_loadu_pd(x + i), kk));
}

static int count_equal_bytes(const unsigned char *a, const unsigned char *b) {
    __m128i va = _mm_loadu_si128((const __m128i *)a);
    __m128i vb = _mm_loadu_si128((const __m128i *)b);
    int mask = _mm_movemask_epi8(_mm_cmpeq_epi8(va, vb));
    return __builtin_popcount((unsigned)mask);
}

static __m128i sum_epi32(__m128i a, __m128i b) {
    __m128i s = _mm_add_epi32(a, b);
    s = _mm_add_epi32(s, _mm_shuffle_epi32(s, _MM_SHUFFLE(1, 0, 3, 2)));
    return _mm_add_epi32(s, _mm_shuffle_epi32(s, _MM_SHUFFLE(2, 3, 0, 1)));
}

static __m128i mix16(__m128i a, __m128i b) {
    __m128i lo = _mm_unpacklo_epi16(a, b);
    __m128i prod = _mm_madd_epi16(lo, _mm_set1_epi16(3));
    __m128i sat = _mm_adds_epu8(a, b);
    return _mm_xor_si128(_mm_packs_epi32(prod, prod), _mm_srli_epi64(sat, 7));
}

static double max_sqrt(__m128d v) {
    __m128d r = _mm_sqrt_pd(_mm_max_pd(v, _mm_set_pd(4.0, 9.0)));
    double out[2] __attribute__((aligned(16)));
    _mm_store_pd(out, r);
    return out[0] > out[1] ? out[0] : out[1];
}

int main(int argc, char **argv) {
    (void)argv;
    double a[7] = { 1, 2, 3, 4, 5, 6, 7 }, b[7] = { 7, 6, 5, 4, 3, 2, (double)argc };
    scale_inplace(a, 7, 0.5);
    unsigned char s1[17] = "abcdefghijklmnop", s2[17] = "abcdEFGHijklmnoP";
    __m128i t = sum_epi32(_mm_set_epi32(1, 2, 3, argc), _mm_set1_epi32(10));
    __m128i m = mix16(_mm_set1_epi16((short)argc), _mm_set1_epi8(100));
    __m128 f = _mm_cvtepi32_ps(t);
    printf("%g %d %d %d %g %g\n", dot_sse2(a, b, 7), count_equal_bytes(s1, s2), _mm_cvtsi128_si32(t),
           _mm_extract_epi16(m, 1), max_sqrt(_mm_set_pd(2.0, (double)argc)), _mm_cvtss_f32(f));
    return 0;
}
