// A copy helper moving 8-byte words through `long *` (old-style code, hence
// -fno-strict-aliasing), called with arrays of doubles and with arrays of longs (a
// permutation): the callers disagree on what its words are, so no one derivative
// typed from what they all pass can be right. As Enzyme does, the derivative is
// made for the call site that asks for it (`synth/site_types.py`: word copies
// through parameters the helper only copies count like memcpy through `void *`);
// it was "its words hold floating-point data and integers alike". Also a record
// of doubles copied word by word, a second double site (an output), and forward
// mode. With strict aliasing the helper's `long` tags make reading doubles through
// it undefined, a compile-time error (diag/word_copy_helper_two_types.c).
// Reference: central finite differences.
// tol: rel=1e-6 abs=1e-8
// grads: 8
// flags: -fno-strict-aliasing
#include <math.h>
#include <stdio.h>

extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

struct frame { double pos, vel, mass; };

__attribute__((noinline)) void copy_words(void *to, const void *from, int n) {
    long *t = to;
    const long *s = from;
    for (int i = 0; i < n; i++)
        t[i] = s[i];
}

double f(const double *x, int n) {
    double y[8], out[8];
    long idx[8], perm[8];
    struct frame a = {x[0], x[1] * x[2], 2.0}, b;
    for (int i = 0; i < n; i++) perm[i] = n - 1 - i;
    copy_words(y, x, n);
    copy_words(idx, perm, n);
    copy_words(&b, &a, sizeof a / sizeof(long));
    double s = b.pos * b.vel * b.mass;
    for (int i = 0; i < n; i++) out[i] = sin(y[idx[i]]) * y[i] * (i + 1);
    copy_words(y, out, n);
    for (int i = 0; i < n; i++) s += y[i] * y[i];
    return s;
}

int main(void) {
    enum { N = 4 };
    double x[N] = {0.5, -1, 2, 0.25}, dx[N] = {0};
    __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_const, N);
    const double h = 1e-6;
    for (int j = 0; j < N; j++) {
        double xp[N], xm[N], t[N] = {0};
        for (int i = 0; i < N; i++) xp[i] = xm[i] = x[i];
        xp[j] += h;
        xm[j] -= h;
        t[j] = 1;
        double fd = (f(xp, N) - f(xm, N)) / (2 * h);
        printf("grad x%d %.17g %.17g\n", j, dx[j], fd);
        printf("grad fwd_x%d %.17g %.17g\n", j, __enzyme_fwddiff((void *)f, enzyme_dup, x, t, enzyme_const, N), fd);
    }
    return 0;
}
