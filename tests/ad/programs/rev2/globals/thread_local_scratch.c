// A thread-local scratch buffer reused across calls (`static _Thread_local double
// scratch[64]`, the usual way to avoid malloc in a hot path that may run in
// threads), written with active values by a noinline helper and read back. Clang
// reaches it through `llvm.threadlocal.address`; it was "an active value is
// written to memory the AD cannot shadow" (ClangEnzyme-19 aborts). It gets a
// zeroed shadow of enzc's own, thread-local as well, reached the same way. Each
// function is differentiated twice in a row. Reverse and forward.
// Reference: central finite differences.
// tol: rel=1e-6 abs=1e-8
// grads: 14
#include <math.h>
#include <stdio.h>
#include <string.h>

extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

static _Thread_local double scratch[64];
_Thread_local double last_norm;  /* written too: a thread-local scalar */

__attribute__((noinline)) static double smooth_norm(const double *x, int n) {
    for (int i = 0; i < n; i++) scratch[i] = x[i] * x[i] + 1e-3;
    double s = 0;
    for (int i = 0; i < n; i++) s += sqrt(scratch[i]) * (i + 1);
    last_norm = s;
    return s;
}

double f(const double *x, int n) {
    double a = smooth_norm(x, n);
    double b = smooth_norm(x + 1, n - 1);
    return a * b + last_norm * scratch[0];
}

int main(void) {
    enum { N = 7 };
    double x[N] = {0.4, -0.9, 1.6, 0.05, -0.3, 2.2, 0.8};
    for (int round = 0; round < 2; round++) {
        double dx[N] = {0};
        __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_const, N);
        const double h = 1e-6;
        for (int i = 0; i < N; i++) {
            double a[N], b[N], t[N] = {0};
            memcpy(a, x, sizeof a);
            memcpy(b, x, sizeof b);
            a[i] += h;
            b[i] -= h;
            t[i] = 1;
            double fd = (f(a, N) - f(b, N)) / (2 * h);
            if (round == 0) {
                printf("grad x%d %.17g %.17g\n", i, dx[i], fd);
            } else {
                printf("grad fwd_x%d %.17g %.17g\n", i,
                       __enzyme_fwddiff((void *)f, enzyme_dup, x, t, enzyme_const, N), fd);
            }
        }
    }
    return 0;
}
