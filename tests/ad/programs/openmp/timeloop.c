// A time loop around parallel regions, as in the Brusselator benchmark: clang
// stores the state pointers (carved out of one work array) in stack slots once and
// reloads them before each fork. The derivative reads them as the stored pointers
// (test_openmp_adjoints.py checks that `simulate`'s derivative caches at most 2
// values, not the 4 pointers per step it cached before), and the regions read a
// shared coefficient array p (thread-private adjoint sums).
// tol: rel=1e-6 abs=1e-8
// grads: 8
// flags: -fopenmp
#include <stdlib.h>
#include <string.h>
#include "fd.h"

extern void __enzyme_autodiff(void *, ...);
extern int enzyme_dup, enzyme_const;

enum { N = 64, STEPS = 5 };

__attribute__((noinline)) static void rhs(double *du, double *dv, const double *u, const double *v,
                                          const double *p) {
#pragma omp parallel for schedule(static)
    for (int i = 0; i < N; i++) {
        double lu = u[(i + N - 1) % N] + u[(i + 1) % N] - 2 * u[i];
        du[i] = p[0] * lu + p[1] * u[i] * v[i];
        dv[i] = p[2] * u[i] - v[i] * v[i] * p[1];
    }
}

__attribute__((noinline)) double simulate(const double *u0, const double *p, double *work) {
    double *u = work, *v = work + N, *du = work + 2 * N, *dv = work + 3 * N;
    memcpy(u, u0, N * sizeof *u);
    for (int k = 0; k < N; k++)
        v[k] = 0.5;
    for (int t = 0; t < STEPS; t++) {
        rhs(du, dv, u, v, p);
#pragma omp parallel for schedule(static)
        for (int k = 0; k < N; k++) {
            u[k] += 0.05 * du[k];
            v[k] += 0.05 * dv[k];
        }
    }
    double s = 0;
#pragma omp parallel for reduction(+ : s)
    for (int k = 0; k < N; k++)
        s += u[k] * v[k];
    return s;
}

int main(void) {
    double u0[N], du0[N] = {0}, p[3] = {0.3, 0.7, -0.4}, dp[3] = {0};
    double *work = calloc(4 * N, sizeof *work), *dwork = calloc(4 * N, sizeof *dwork);
    for (int k = 0; k < N; k++)
        u0[k] = 1.0 + 0.3 * sin(0.2 * k);
    __enzyme_autodiff((void *)simulate, enzyme_dup, u0, du0, enzyme_dup, p, dp, enzyme_dup, work, dwork);
    FD_CHECK("u", u0, 0, du0[0], simulate(u0, p, work));
    FD_CHECK("u", u0, 1, du0[1], simulate(u0, p, work));
    FD_CHECK("u", u0, 31, du0[31], simulate(u0, p, work));
    FD_CHECK("u", u0, 32, du0[32], simulate(u0, p, work));
    FD_CHECK("u", u0, N - 1, du0[N - 1], simulate(u0, p, work));
    FD_CHECK("p", p, 0, dp[0], simulate(u0, p, work));
    FD_CHECK("p", p, 1, dp[1], simulate(u0, p, work));
    FD_CHECK("p", p, 2, dp[2], simulate(u0, p, work));
    return 0;
}
