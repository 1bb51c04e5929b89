// Forward mode of a parallel loop with a reduction: every thread carries the
// tangents of its iterations, the reduction combines values and tangents.
// tol: rel=1e-6 abs=1e-8
// grads: 6
// flags: -fopenmp
#include <stdlib.h>
#include "fd.h"

extern double __enzyme_fwddiff(void *, ...);
extern int enzyme_dup, enzyme_const;

__attribute__((noinline)) double smooth(const double *x, double *y, double c, int n) {
    double s = 0;
#pragma omp parallel for reduction(+ : s) schedule(dynamic, 5)
    for (int i = 0; i < n; i++) {
        y[i] = c * exp(0.3 * x[i]) + x[(i + 1) % n];
        s += y[i] * x[i];
    }
    return s;
}

int main(void) {
    enum { N = 200 };
    double *x = malloc(N * sizeof *x), *y = calloc(N, sizeof *y), *dy = calloc(N, sizeof *dy);
    double *e = calloc(N, sizeof *e);
    for (int i = 0; i < N; i++)
        x[i] = sin(0.2 * i);
    for (int j = 0; j < N; j += 40) {
        e[j] = 1;
        double d = __enzyme_fwddiff((void *)smooth, enzyme_dup, x, e, enzyme_dup, y, dy, enzyme_const, 1.3,
                                    enzyme_const, N);
        e[j] = 0;
        FD_CHECK("x", x, j, d, smooth(x, y, 1.3, N));
    }
    double one = 1, c = 1.3;
    double dc = __enzyme_fwddiff((void *)smooth, enzyme_const, x, enzyme_dup, y, dy, enzyme_dup, c, one, enzyme_const, N);
    FD_CHECK("c", &c, 0, dc, smooth(x, y, c, N));
    return 0;
}
