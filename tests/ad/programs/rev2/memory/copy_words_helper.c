// An array of {long, double} copied as 8-byte words by a helper. The program shows
// the type of the first element only; taking the first word (a long) for every word
// dropped the doubles' adjoints (a zero gradient), so it became a compile-time error.
// The helper's one caller passes a buffer it indexes as `struct sample` records:
// the copy is such records, its length (a multiple of 8, not provably of 16) checked
// at run time to be whole records.
// Reference: analytic. f = sum_i value_i^2 count_i
// tol: rel=1e-12 abs=1e-12
// grads: 3
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct sample { long count; double value; };
extern double __enzyme_autodiff(void *, ...);
extern int enzyme_dup, enzyme_const;

__attribute__((noinline)) void copy_words(void *dst, const void *src, long words) {
    memcpy(dst, src, words * 8);
}

double weigh(struct sample *in, long k) {
    struct sample *tmp = malloc(k * sizeof(struct sample));
    copy_words(tmp, in, 2 * k);
    double s = 0;
    for (long i = 0; i < k; i++) s += tmp[i].value * tmp[i].value * (double)tmp[i].count;
    free(tmp);
    return s;
}

int main(void) {
    struct sample in[3] = {{1, 1.5}, {2, 2.0}, {3, -0.5}}, d[3] = {{0, 0}};
    __enzyme_autodiff((void *)weigh, enzyme_dup, in, d, enzyme_const, 3L);
    for (int i = 0; i < 3; i++)
        printf("grad value[%d] %.17g %.17g\n", i, d[i].value, 2 * in[i].value * in[i].count);
    return 0;
}
