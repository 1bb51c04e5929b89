// A parallel loop calling a noinline helper that reads neighbours through a
// pointer and a shared coefficient array: the helper is differentiated for a team
// (its adjoints of shared memory added atomically), `private` scratch per thread.
// tol: rel=1e-6 abs=1e-8
// grads: 13
// flags: -fopenmp
#include <stdlib.h>
#include "fd.h"

extern void __enzyme_autodiff(void *, ...);
extern int enzyme_dup, enzyme_const;

__attribute__((noinline)) static double flux(const double *u, const double *k, int i) {
    return k[i % 4] * (u[i + 1] - u[i]) * tanh(u[i]);
}

__attribute__((noinline)) double total(const double *u, const double *k, double *f, int n) {
    double scratch;
#pragma omp parallel for private(scratch) schedule(static, 16)
    for (int i = 0; i < n - 1; i++) {
        scratch = flux(u, k, i);
        f[i] = scratch * scratch + flux(u, k, i) * u[i];
    }
    double s = 0;
    for (int i = 0; i < n - 1; i++)
        s += f[i];
    return s;
}

int main(void) {
    enum { N = 257 };
    double *u = malloc(N * sizeof *u), *f = calloc(N, sizeof *f), k[4] = {0.5, 1.5, -0.7, 2.0};
    double *du = calloc(N, sizeof *du), *df = calloc(N, sizeof *df), dk[4] = {0};
    for (int i = 0; i < N; i++)
        u[i] = 0.2 + 0.8 * cos(0.05 * i);
    __enzyme_autodiff((void *)total, enzyme_dup, u, du, enzyme_dup, k, dk, enzyme_dup, f, df, enzyme_const, N);
    for (int i = 0; i < N; i += 32)
        FD_CHECK("u", u, i, du[i], total(u, k, f, N));
    for (int j = 0; j < 4; j++)
        FD_CHECK("k", k, j, dk[j], total(u, k, f, N));
    return 0;
}
