// An explicit Euler integrator whose right-hand side (a Brusselator-like
// reaction-diffusion on a ring) is a parallel loop: 40 steps, each a parallel
// region, so the gradient replays 40 teams backwards.
// tol: rel=1e-6 abs=1e-8
// grads: 10
// flags: -fopenmp
#include <stdlib.h>
#include <string.h>
#include "fd.h"

extern void __enzyme_autodiff(void *, ...);
extern int enzyme_dup, enzyme_const;

enum { N = 64, STEPS = 40 };

__attribute__((noinline)) static void rhs(double *du, double *dv, const double *u, const double *v,
                                          const double *p) {
#pragma omp parallel for schedule(static)
    for (int i = 0; i < N; i++) {
        double lap_u = u[(i + N - 1) % N] - 2 * u[i] + u[(i + 1) % N];
        double lap_v = v[(i + N - 1) % N] - 2 * v[i] + v[(i + 1) % N];
        double uuv = u[i] * u[i] * v[i];
        du[i] = p[2] * lap_u + p[0] + uuv - (p[1] + 1) * u[i];
        dv[i] = p[3] * lap_v + p[1] * u[i] - uuv;
    }
}

__attribute__((noinline)) double integrate(const double *u0, const double *p, double *work) {
    double *u = work, *v = work + N, *du = work + 2 * N, *dv = work + 3 * N;
    memcpy(u, u0, N * sizeof *u);
    for (int i = 0; i < N; i++)
        v[i] = 3.0;
    const double dt = 0.01;
    for (int t = 0; t < STEPS; t++) {
        rhs(du, dv, u, v, p);
        for (int i = 0; i < N; i++) {
            u[i] += dt * du[i];
            v[i] += dt * dv[i];
        }
    }
    double s = 0;
    for (int i = 0; i < N; i++)
        s += u[i] * v[i];
    return s;
}

int main(void) {
    double u0[N], du0[N] = {0}, p[4] = {1.0, 3.0, 0.2, 0.1}, dp[4] = {0};
    double *work = calloc(4 * N, sizeof *work), *dwork = calloc(4 * N, sizeof *dwork);
    for (int i = 0; i < N; i++)
        u0[i] = 1.0 + 0.3 * sin(6.283185307179586 * i / N);
    __enzyme_autodiff((void *)integrate, enzyme_dup, u0, du0, enzyme_dup, p, dp, enzyme_dup, work, dwork);
    for (int i = 0; i < N; i += 11)
        FD_CHECK("u", u0, i, du0[i], integrate(u0, p, work));
    for (int j = 0; j < 4; j++)
        FD_CHECK("p", p, j, dp[j], integrate(u0, p, work));
    return 0;
}
