// A histogram-like scatter: iterations add into shared bins chosen by an index
// array (`#pragma omp atomic`), so many threads update one bin; the reverse reads
// each bin's adjoint, and bins fed back into the loss add atomically too.
// tol: rel=1e-6 abs=1e-8
// grads: 10
// flags: -fopenmp
#include <stdlib.h>
#include "fd.h"

extern void __enzyme_autodiff(void *, ...);
extern int enzyme_dup, enzyme_const;

enum { BINS = 8 };

__attribute__((noinline)) double binned(const double *x, const int *bin, double *hist, int n) {
    for (int b = 0; b < BINS; b++)
        hist[b] = 0;
#pragma omp parallel for schedule(static)
    for (int i = 0; i < n; i++) {
        double w = x[i] * x[i] + sin(x[i]);
#pragma omp atomic
        hist[bin[i]] += w;
    }
    double s = 0;
    for (int b = 0; b < BINS; b++)
        s += hist[b] * hist[b] * (b + 1);
    return s;
}

int main(void) {
    enum { N = 500 };
    double *x = malloc(N * sizeof *x), *dx = calloc(N, sizeof *dx);
    double hist[BINS], dhist[BINS] = {0};
    int *bin = malloc(N * sizeof *bin);
    for (int i = 0; i < N; i++) {
        x[i] = 0.01 * (i % 37) - 0.1;
        bin[i] = (i * 7 + i / 13) % BINS;
    }
    __enzyme_autodiff((void *)binned, enzyme_dup, x, dx, enzyme_const, bin, enzyme_dup, hist, dhist, enzyme_const, N);
    for (int i = 0; i < N; i += 50)
        FD_CHECK("x", x, i, dx[i], binned(x, bin, hist, N));
    return 0;
}
