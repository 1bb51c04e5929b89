// Adjoints the reverse adds without atomics, and their neighbours that must stay
// atomic. `rows` touches a[i*M + j] and x[i] from iteration i of the work-sharing
// loop only: plain adds (analysis/omp_disjoint.py). `coef` reads the shared
// coefficients c[0], c[1] in every iteration: thread-private sums flushed once
// per thread. `overlap` reads stencil neighbours x[i-1], x[i+1] and scatters
// through an index array (y[idx[i]], several i share an entry): those stay atomic,
// as does `two_loops`, whose region runs two work-sharing loops (out[i] is
// touched by iteration i of one and iteration N-1-i of the other: the analysis
// only trusts a region with one work-sharing loop).
// test_openmp_ir.py checks which adds are atomic; here every entry is checked
// against finite differences at 1, 2 and 4 threads.
// tol: rel=1e-6 abs=1e-8
// grads: 12
// flags: -fopenmp
#include <stdlib.h>
#include <string.h>
#include "fd.h"

extern void __enzyme_autodiff(void *, ...);
extern int enzyme_dup, enzyme_const;

enum { N = 203, M = 7 };

__attribute__((noinline)) void rows(const double *a, const double *x, double *out) {
#pragma omp parallel for schedule(static)
    for (int i = 0; i < N; i++) {
        double s = 0;
        for (int j = 0; j < M; j++)
            s += a[i * M + j] * a[i * M + j] * x[i];
        out[i] = s;
    }
}

__attribute__((noinline)) void coef(const double *c, const double *x, double *out) {
#pragma omp parallel for schedule(dynamic, 5)
    for (int i = 0; i < N; i++)
        out[i] += c[0] * sin(x[i]) + c[1] * x[i] * x[i];
}

__attribute__((noinline)) void overlap(const double *x, const int *idx, double *y, double *out) {
#pragma omp parallel for schedule(static)
    for (int i = 1; i < N - 1; i++) {
        out[i] += x[i - 1] * x[i + 1] + cos(y[idx[i]]);
    }
}

__attribute__((noinline)) void two_loops(const double *x, double *out) {
#pragma omp parallel
    {
#pragma omp for schedule(static)
        for (int i = 0; i < N; i++)
            out[i] += x[i] * x[i];
#pragma omp for schedule(static)
        for (int i = 0; i < N; i++)
            out[N - 1 - i] += 0.5 * x[i];
    }
}

__attribute__((noinline)) double loss(const double *a, const double *x, const double *c, const int *idx,
                                      double *y, double *out) {
    rows(a, x, out);
    coef(c, x, out);
    overlap(x, idx, y, out);
    two_loops(x, out);
    double s = 0;
    for (int i = 0; i < N; i++)
        s += out[i] * out[i];
    return s;
}

int main(void) {
    double *a = malloc(N * M * sizeof *a), *da = calloc(N * M, sizeof *da);
    double *x = malloc(N * sizeof *x), *dx = calloc(N, sizeof *dx);
    double *y = malloc(8 * sizeof *y), *dy = calloc(8, sizeof *dy);
    double *out = calloc(N, sizeof *out), *dout = calloc(N, sizeof *dout);
    int *idx = malloc(N * sizeof *idx);
    double c[2] = {0.7, -0.3}, dc[2] = {0, 0};
    for (int k = 0; k < N * M; k++)
        a[k] = 0.5 + 0.3 * sin(0.37 * k);
    for (int i = 0; i < N; i++) {
        x[i] = 0.2 + 0.4 * cos(0.11 * i);
        idx[i] = (i * 5) % 8;
    }
    for (int k = 0; k < 8; k++)
        y[k] = 0.1 * k + 0.05;
    __enzyme_autodiff((void *)loss, enzyme_dup, a, da, enzyme_dup, x, dx, enzyme_dup, c, dc, enzyme_const, idx,
                      enzyme_dup, y, dy, enzyme_dup, out, dout);
#define LOSS (loss(a, x, c, idx, y, (double *)memset(out, 0, N * sizeof *out)))
    FD_CHECK("a", a, 0, da[0], LOSS);
    FD_CHECK("a", a, 3 * M + 2, da[3 * M + 2], LOSS);
    FD_CHECK("a", a, N * M - 1, da[N * M - 1], LOSS);
    FD_CHECK("x", x, 0, dx[0], LOSS);
    FD_CHECK("x", x, 1, dx[1], LOSS);
    FD_CHECK("x", x, 100, dx[100], LOSS);
    FD_CHECK("x", x, 101, dx[101], LOSS);
    FD_CHECK("x", x, N - 1, dx[N - 1], LOSS);
    FD_CHECK("c", c, 0, dc[0], LOSS);
    FD_CHECK("c", c, 1, dc[1], LOSS);
    FD_CHECK("y", y, 0, dy[0], LOSS);
    FD_CHECK("y", y, 5, dy[5], LOSS);
    return 0;
}
