// Race stress: the gradient of a region whose reverse adds into shared adjoints
// from every thread (a stencil's neighbours, a shared coefficient, scattered bins)
// is computed 200 times; a lost atomic update would change an entry by O(1), so
// the largest relative difference to the first run (`grad spread`) must be at
// summation-order level (<= 1e-8 by the tolerance; with the static schedule the
// order of additions still varies where threads meet, so it is not bitwise).
// tol: rel=1e-6 abs=1e-8
// grads: 5
// flags: -fopenmp
#include <stdlib.h>
#include <string.h>
#include "fd.h"

extern void __enzyme_autodiff(void *, ...);
extern int enzyme_dup, enzyme_const;

enum { N = 2000, BINS = 4, REPEATS = 200 };

__attribute__((noinline)) double loss(const double *x, const double *k, double *bins, int n) {
    for (int b = 0; b < BINS; b++)
        bins[b] = 0;
    double s = 0;
#pragma omp parallel for schedule(static) reduction(+ : s)
    for (int i = 1; i < n - 1; i++) {
        double v = k[0] * x[i - 1] + k[1] * x[i] + k[2] * x[i + 1];
        s += v * v;
#pragma omp atomic
        bins[i % BINS] += v;
    }
    for (int b = 0; b < BINS; b++)
        s += bins[b] * bins[b] * 1e-3;
    return s;
}

int main(void) {
    double *x = malloc(N * sizeof *x), *first = malloc(N * sizeof *first), *dx = malloc(N * sizeof *dx);
    double k[3] = {0.25, -0.5, 0.3}, dk[3], bins[BINS], dbins[BINS];
    for (int i = 0; i < N; i++)
        x[i] = sin(0.01 * i) + 0.1;
    double spread = 0, first_k0 = 0;
    for (int r = 0; r < REPEATS; r++) {
        memset(dx, 0, N * sizeof *dx);
        memset(dk, 0, sizeof dk);
        memset(dbins, 0, sizeof dbins);
        __enzyme_autodiff((void *)loss, enzyme_dup, x, dx, enzyme_dup, k, dk, enzyme_dup, bins, dbins,
                          enzyme_const, N);
        if (r == 0) {
            memcpy(first, dx, N * sizeof *dx);
            first_k0 = dk[0];
        }
        for (int i = 0; i < N; i++)
            spread = fmax(spread, fabs(dx[i] - first[i]) / fmax(1.0, fabs(first[i])));
        spread = fmax(spread, fabs(dk[0] - first_k0) / fmax(1.0, fabs(first_k0)));
    }
    printf("grad spread %.17g 0\n", spread);
    FD_CHECK("x", x, 0, dx[0], loss(x, k, bins, N));
    FD_CHECK("x", x, N / 2, dx[N / 2], loss(x, k, bins, N));
    FD_CHECK("x", x, N - 1, dx[N - 1], loss(x, k, bins, N));
    FD_CHECK("k", k, 0, dk[0], loss(x, k, bins, N));
    return 0;
}
