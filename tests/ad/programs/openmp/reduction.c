// Two reductions in one dynamically scheduled loop (chunks of 7): each thread's
// chunks come from the runtime one by one, and its tape replays exactly those.
// tol: rel=1e-6 abs=1e-8
// grads: 7
// flags: -fopenmp
#include <stdlib.h>
#include "fd.h"

extern double __enzyme_autodiff(void *, ...);
extern int enzyme_dup, enzyme_const;

__attribute__((noinline)) double moments(const double *x, int n) {
    double a = 0, b = 0;
#pragma omp parallel for reduction(+ : a, b) schedule(dynamic, 7)
    for (int i = 0; i < n; i++) {
        a += exp(-x[i] * x[i]);
        b += x[i] * cos(x[i]);
    }
    return a * b / n;
}

int main(void) {
    enum { N = 301 };
    double *x = malloc(N * sizeof *x), *dx = calloc(N, sizeof *dx);
    for (int i = 0; i < N; i++)
        x[i] = cos(0.37 * i);
    __enzyme_autodiff((void *)moments, enzyme_dup, x, dx, enzyme_const, N);
    for (int i = 0; i < N; i += 43)
        FD_CHECK("x", x, i, dx[i], moments(x, N));
    return 0;
}
