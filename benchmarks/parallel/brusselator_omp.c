/* The 2-D Brusselator (reaction-diffusion on an N x N periodic grid, Euler steps)
 * with an OpenMP right-hand side, as benchmarks/parallel/omp_scaling.py times it:
 * prints `objective <seconds>` and `gradient <seconds>` (best of the repetitions,
 * clock_gettime) for the thread count of OMP_NUM_THREADS. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

extern void __enzyme_autodiff(void *, ...);
extern int enzyme_dup, enzyme_const;

#ifndef N
#define N 128
#endif
#define STEPS 10
#define IDX(i, j) ((((i) + N) % N) * N + (((j) + N) % N))

__attribute__((noinline)) static void rhs(double *du, double *dv, const double *u, const double *v,
                                          const double *p) {
#pragma omp parallel for schedule(static)
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) {
            double lu = u[IDX(i - 1, j)] + u[IDX(i + 1, j)] + u[IDX(i, j - 1)] + u[IDX(i, j + 1)] - 4 * u[IDX(i, j)];
            double lv = v[IDX(i - 1, j)] + v[IDX(i + 1, j)] + v[IDX(i, j - 1)] + v[IDX(i, j + 1)] - 4 * v[IDX(i, j)];
            double uuv = u[IDX(i, j)] * u[IDX(i, j)] * v[IDX(i, j)];
            du[IDX(i, j)] = p[2] * lu + p[0] + uuv - (p[1] + 1) * u[IDX(i, j)];
            dv[IDX(i, j)] = p[3] * lv + p[1] * u[IDX(i, j)] - uuv;
        }
}

__attribute__((noinline)) double simulate(const double *u0, const double *p, double *work) {
    double *u = work, *v = work + N * N, *du = work + 2 * N * N, *dv = work + 3 * N * N;
    memcpy(u, u0, N * N * sizeof *u);
    for (int k = 0; k < N * N; k++)
        v[k] = 3.0;
    for (int t = 0; t < STEPS; t++) {
        rhs(du, dv, u, v, p);
#pragma omp parallel for schedule(static)
        for (int k = 0; k < N * N; k++) {
            u[k] += 0.001 * du[k];
            v[k] += 0.001 * dv[k];
        }
    }
    double s = 0;
#pragma omp parallel for reduction(+ : s)
    for (int k = 0; k < N * N; k++)
        s += u[k] * v[k];
    return s;
}

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

int main(int argc, char **argv) {
    int reps = argc > 1 ? atoi(argv[1]) : 5;
    double *u0 = malloc(N * N * sizeof *u0), *du0 = calloc(N * N, sizeof *du0);
    double *work = calloc(4 * N * N, sizeof *work), *dwork = calloc(4 * N * N, sizeof *dwork);
    double p[4] = {1.0, 3.0, 0.2, 0.1}, dp[4];
    for (int k = 0; k < N * N; k++)
        u0[k] = 1.0 + 0.3 * sin(0.01 * k);
    double best_f = 1e30, best_g = 1e30, sink = 0;
    for (int r = 0; r < reps; r++) {
        double t0 = now();
        sink += simulate(u0, p, work);
        double t1 = now();
        memset(du0, 0, N * N * sizeof *du0);
        memset(dwork, 0, 4 * N * N * sizeof *dwork);
        memset(dp, 0, sizeof dp);
        __enzyme_autodiff((void *)simulate, enzyme_dup, u0, du0, enzyme_dup, p, dp, enzyme_dup, work, dwork);
        double t2 = now();
        best_f = fmin(best_f, t1 - t0);
        best_g = fmin(best_g, t2 - t1);
    }
    printf("objective %.6g\ngradient %.6g\ncheck %.6g %.6g\n", best_f, best_g, sink, dp[0]);
    return 0;
}
