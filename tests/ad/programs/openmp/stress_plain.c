// Race stress, bitwise, arbitrary data: a region whose reverse needs no atomic add
// (each iteration owns x[i], a[i*M + j] and out[i]: analysis/omp_disjoint.py), so
// the gradient does not depend on the thread count or on timing at all. It is
// computed 200 times at the thread count of the run (1, 2, 4), static schedule,
// and compared bit for bit with the first (exit 1 on a difference).
// test_openmp_adjoints.py checks that its reverse has no `atomicrmw` at all.
// tol: rel=1e-6 abs=1e-8
// grads: 5
// flags: -fopenmp
#include <stdlib.h>
#include <string.h>
#include "fd.h"

extern void __enzyme_autodiff(void *, ...);
extern int enzyme_dup, enzyme_const;

enum { N = 1500, M = 6, REPEATS = 200 };

__attribute__((noinline)) void kernel(const double *a, const double *x, double *out) {
#pragma omp parallel for schedule(static)
    for (int i = 0; i < N; i++) {
        double s = sin(x[i]);
        for (int j = 0; j < M; j++)
            s += exp(0.1 * a[i * M + j]) * x[i];
        out[i] = s * s;
    }
}

__attribute__((noinline)) double loss(const double *a, const double *x, double *out) {
    kernel(a, x, out);
    double s = 0;
    for (int i = 0; i < N; i++)
        s += out[i];
    return s;
}

int main(void) {
    double *a = malloc(N * M * sizeof *a), *da = malloc(N * M * sizeof *da), *first_a = malloc(N * M * sizeof *a);
    double *x = malloc(N * sizeof *x), *dx = malloc(N * sizeof *dx), *first_x = malloc(N * sizeof *x);
    double *out = calloc(N, sizeof *out), *dout = calloc(N, sizeof *dout);
    for (int k = 0; k < N * M; k++)
        a[k] = sin(1.3 * k) + 0.1;
    for (int i = 0; i < N; i++)
        x[i] = 0.7 * cos(0.37 * i);
    for (int r = 0; r < REPEATS; r++) {
        memset(da, 0, N * M * sizeof *da);
        memset(dx, 0, N * sizeof *dx);
        __enzyme_autodiff((void *)loss, enzyme_dup, a, da, enzyme_dup, x, dx, enzyme_dup, out, dout);
        if (r == 0) {
            memcpy(first_a, da, N * M * sizeof *da);
            memcpy(first_x, dx, N * sizeof *dx);
        } else if (memcmp(first_a, da, N * M * sizeof *da) != 0 || memcmp(first_x, dx, N * sizeof *dx) != 0) {
            fprintf(stderr, "repetition %d: the gradient differs bitwise from the first\n", r);
            return 1;
        }
    }
    FD_CHECK("a", a, 0, first_a[0], loss(a, x, out));
    FD_CHECK("a", a, 7 * M + 5, first_a[7 * M + 5], loss(a, x, out));
    FD_CHECK("x", x, 0, first_x[0], loss(a, x, out));
    FD_CHECK("x", x, N / 2, first_x[N / 2], loss(a, x, out));
    FD_CHECK("x", x, N - 1, first_x[N - 1], loss(a, x, out));
    return 0;
}
