// Race stress, bitwise: the gradient 200 times at the thread count of the run
// (the test runs 1, 2 and 4), static schedule, compared bit for bit with the
// first; the program exits 1 on the first difference. Its reverse adds atomically
// (stencil neighbours, weights w[i % 4] that every thread reads over and over,
// the shared coefficients' per-thread sums, scattered bins), so
// the order of additions varies between runs; the data are small dyadic rationals
// (multiples of 1/64 of modest size) for which every partial sum is exact, so
// any order gives the same bits and only a lost or doubled update changes them.
// tol: rel=1e-6 abs=1e-8
// grads: 6
// flags: -fopenmp
#include <stdlib.h>
#include <string.h>
#include "fd.h"

extern void __enzyme_autodiff(void *, ...);
extern int enzyme_dup, enzyme_const;

enum { N = 4000, BINS = 4, REPEATS = 200 };

__attribute__((noinline)) double loss(const double *x, const double *k, const double *w, double *bins, int n) {
    for (int b = 0; b < BINS; b++)
        bins[b] = 0;
    double s = 0;
#pragma omp parallel for schedule(static) reduction(+ : s)
    for (int i = 1; i < n - 1; i++) {
        double v = k[0] * x[i - 1] + k[1] * x[i] + k[2] * x[i + 1] + w[i % BINS] * x[i];
        s += v * v;
#pragma omp atomic
        bins[i % BINS] += v;
    }
    for (int b = 0; b < BINS; b++)
        s += bins[b] * bins[b] * 0.0009765625; /* 2^-10: exact */
    return s;
}

static void run(const double *x, const double *k, const double *w, double *dx, double *dk, double *dw,
                double *bins, double *dbins) {
    memset(dx, 0, N * sizeof *dx);
    memset(dk, 0, 3 * sizeof *dk);
    memset(dw, 0, BINS * sizeof *dw);
    memset(dbins, 0, BINS * sizeof *dbins);
    __enzyme_autodiff((void *)loss, enzyme_dup, x, dx, enzyme_dup, k, dk, enzyme_dup, w, dw, enzyme_dup, bins,
                      dbins, enzyme_const, N);
}

int main(void) {
    double *x = malloc(N * sizeof *x), *dx = malloc(N * sizeof *dx), *first = malloc(N * sizeof *first);
    double k[3] = {0.25, -0.5, 0.75}, dk[3], first_k[3], bins[BINS], dbins[BINS];
    double w[BINS] = {0.5, -0.25, 0.125, 1}, dw[BINS], first_w[BINS];
    for (int i = 0; i < N; i++)
        x[i] = (double)((i * 7) % 13 - 6) / 8; /* -0.75 .. 0.75 in steps of 1/8 */
    run(x, k, w, dx, dk, dw, bins, dbins);
    memcpy(first, dx, N * sizeof *dx);
    memcpy(first_k, dk, sizeof dk);
    memcpy(first_w, dw, sizeof dw);
    for (int r = 1; r < REPEATS; r++) {
        run(x, k, w, dx, dk, dw, bins, dbins);
        if (memcmp(first, dx, N * sizeof *dx) != 0 || memcmp(first_k, dk, sizeof dk) != 0
            || memcmp(first_w, dw, sizeof dw) != 0) {
            fprintf(stderr, "repetition %d: the gradient differs bitwise from the first\n", r);
            return 1;
        }
    }
    FD_CHECK("x", x, 0, first[0], loss(x, k, w, bins, N));
    FD_CHECK("x", x, N / 2, first[N / 2], loss(x, k, w, bins, N));
    FD_CHECK("x", x, N - 1, first[N - 1], loss(x, k, w, bins, N));
    FD_CHECK("k", k, 0, first_k[0], loss(x, k, w, bins, N));
    FD_CHECK("k", k, 2, first_k[2], loss(x, k, w, bins, N));
    FD_CHECK("w", w, 1, first_w[1], loss(x, k, w, bins, N));
    return 0;
}
