// A 1-D three-point stencil in a parallel loop: iteration i reads x[i-1], x[i],
// x[i+1], so neighbouring iterations (on different threads) add into the same
// adjoint entries and the reverse must add atomically.
// tol: rel=1e-6 abs=1e-8
// grads: 10
// flags: -fopenmp
#include <stdlib.h>
#include "fd.h"

extern void __enzyme_autodiff(void *, ...);
extern int enzyme_dup, enzyme_const;

__attribute__((noinline)) double energy(const double *x, double *y, int n) {
#pragma omp parallel for schedule(static)
    for (int i = 1; i < n - 1; i++)
        y[i] = sin(x[i - 1]) - 2 * x[i] * x[i] + x[i + 1] * x[i - 1];
    double s = 0;
    for (int i = 1; i < n - 1; i++)
        s += y[i] * y[i];
    return s;
}

int main(void) {
    enum { N = 400 };
    double *x = malloc(N * sizeof *x), *y = calloc(N, sizeof *y);
    double *dx = calloc(N, sizeof *dx), *dy = calloc(N, sizeof *dy);
    for (int i = 0; i < N; i++)
        x[i] = 0.3 + 0.5 * sin(0.1 * i);
    __enzyme_autodiff((void *)energy, enzyme_dup, x, dx, enzyme_dup, y, dy, enzyme_const, N);
    int at[] = {0, 1, 2, 99, 100, 101, 199, 200, 201, N - 1};
    for (int k = 0; k < 10; k++)
        FD_CHECK("x", x, at[k], dx[at[k]], energy(x, y, N));
    return 0;
}
