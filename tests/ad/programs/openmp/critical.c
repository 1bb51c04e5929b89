// A critical section and an atomic update in one region: each thread sums its
// iterations into a private partial, then adds it to shared totals under
// `#pragma omp critical`; a second shared total is updated with `omp atomic`.
// The reverse takes the same lock around the reverse of the critical section.
// (The loss is a function of the totals only, so it is the same at every thread
// count.)
// tol: rel=1e-6 abs=1e-8
// grads: 8
// flags: -fopenmp
#include <stdlib.h>
#include "fd.h"

extern void __enzyme_autodiff(void *, ...);
extern int enzyme_dup, enzyme_const;

__attribute__((noinline)) double totals(const double *x, int n, double *acc) {
    acc[0] = acc[1] = acc[2] = 0;
#pragma omp parallel
    {
        double part = 0, sq = 0;
#pragma omp for schedule(static)
        for (int i = 0; i < n; i++) {
            part += log(1 + x[i] * x[i]);
            sq += x[i] * x[i] * x[i];
        }
#pragma omp critical
        {
            acc[0] += part;
            acc[1] = acc[1] + 2 * sq - part;
        }
#pragma omp atomic
        acc[2] += sq;
    }
    return acc[0] * acc[2] + acc[1] * acc[1];
}

int main(void) {
    enum { N = 240 };
    double *x = malloc(N * sizeof *x), *dx = calloc(N, sizeof *dx), acc[3], dacc[3] = {0};
    for (int i = 0; i < N; i++)
        x[i] = 0.2 * sin(0.1 * i) + 0.1;
    __enzyme_autodiff((void *)totals, enzyme_dup, x, dx, enzyme_const, N, enzyme_dup, acc, dacc);
    for (int i = 0; i < N; i += 30)
        FD_CHECK("x", x, i, dx[i], totals(x, N, acc));
    return 0;
}
