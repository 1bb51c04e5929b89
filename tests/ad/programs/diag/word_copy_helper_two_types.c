// Diagnostic: a helper copying 8-byte words through `long *`, called with an array
// of doubles at one site and an array of longs at another, built with strict
// aliasing (the default), where its `!tbaa` tags call every word a `long`: reading
// the doubles through `long *` is undefined behaviour in C. It was a zero gradient,
// silently: the callers' facts met into nothing (the doubles' site already had
// the helper's longs joined in, a conflict the meet dropped), so the helper's own
// tags decided. Now the conflict is kept: a compile-time error at the store.
// ClangEnzyme-19 fails to compile it too; built with -fno-strict-aliasing, both
// differentiate it (rev2/memory/word_copy_helper_sites.c).
#include <stdio.h>

extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);

__attribute__((noinline)) void copy_words(void *to, const void *from, int n) {
    long *t = to;
    const long *s = from;
    for (int i = 0; i < n; i++)
        t[i] = s[i]; /* DIAG-LINE */
}

double f(double *x, int n) {
    double y[8];
    long idx[8], perm[8];
    for (int i = 0; i < n; i++) perm[i] = n - 1 - i;
    copy_words(y, x, n);
    copy_words(idx, perm, n);
    double s = 0;
    for (int i = 0; i < n; i++) s += y[idx[i]] * y[i] * (i + 1);
    return s;
}

int main(void) {
    double x[4] = {0.5, -1, 2, 0.25}, dx[4] = {0};
    __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_const, 4);
    printf("%g %g %g %g\n", dx[0], dx[1], dx[2], dx[3]);
    return 0;
}
