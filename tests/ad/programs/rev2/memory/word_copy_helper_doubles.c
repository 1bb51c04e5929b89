// A copy helper moving 8-byte words through `long *` (old-style code, hence
// -fno-strict-aliasing), called with an array of doubles. Alone, the helper's moves
// look like integers (its indexing type is `long`); its caller shows they are
// doubles. They were taken as integers: a zero gradient. Moves of a record holding
// doubles and integers alike are a compile-time error instead
// (diag/word_copy_mixed_record.c).
// Reference: analytic. f = 2 x0 x1 + x2 + x0 x3
// tol: rel=1e-12 abs=1e-12
// grads: 4
// flags: -fno-strict-aliasing
#include <stddef.h>
#include <stdio.h>

extern double __enzyme_autodiff(void *, ...);
extern int enzyme_dup, enzyme_const;

__attribute__((noinline)) void copy_words(void *to, const void *from, size_t n) {
    long *t = to;
    const long *s = from;
    for (size_t i = 0; i < n / sizeof(long); i++)
        t[i] = s[i];
}

double f(const double *in) {
    double a[4] = { in[0] * 2.0, in[1], in[2], in[3] }, b[4];
    copy_words(b, a, sizeof a);
    return b[0] * b[1] + b[2] + in[0] * b[3];
}

int main(void) {
    double in[4] = {1.5, -2.0, 0.7, 0.25}, d[4] = {0};
    __enzyme_autodiff((void *)f, enzyme_dup, in, d);
    double want[4] = { 2 * in[1] + in[3], 2 * in[0], 1.0, in[0] };
    for (int i = 0; i < 4; i++)
        printf("grad d/dx%d %.17g %.17g\n", i, d[i], want[i]);
    return 0;
}
