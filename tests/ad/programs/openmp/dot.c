// A parallel dot product with reduction(+) and a static schedule: the reduction's
// combine (under a lock in the derivative) is reversed by every thread.
// tol: rel=1e-6 abs=1e-8
// grads: 8
// flags: -fopenmp
#include <stdio.h>
#include <stdlib.h>

extern void __enzyme_autodiff(void *, ...);
extern int enzyme_dup, enzyme_const;

static double weighted_dot(const double *x, const double *y, int n) {
    double s = 0;
#pragma omp parallel for reduction(+ : s) schedule(static)
    for (int i = 0; i < n; i++)
        s += x[i] * y[i] * x[i];
    return s;
}

__attribute__((noinline)) double loss(const double *x, const double *y, int n) {
    return weighted_dot(x, y, n);
}

int main(void) {
    enum { N = 1000 };
    double *x = malloc(N * sizeof *x), *y = malloc(N * sizeof *y);
    double *dx = calloc(N, sizeof *dx), *dy = calloc(N, sizeof *dy);
    for (int i = 0; i < N; i++) {
        x[i] = 0.5 + 0.001 * i;
        y[i] = 1.0 - 0.0005 * i;
    }
    __enzyme_autodiff((void *)loss, enzyme_dup, x, dx, enzyme_dup, y, dy, enzyme_const, N);
    for (int i = 0; i < N; i += 333) {
        double h = 1e-4, keep = x[i];
        x[i] = keep + h; double fp = loss(x, y, N);
        x[i] = keep - h; double fm = loss(x, y, N);
        x[i] = keep;
        printf("grad x%d %.17g %.17g\n", i, dx[i], (fp - fm) / (2 * h));
        keep = y[i];
        y[i] = keep + h; fp = loss(x, y, N);
        y[i] = keep - h; fm = loss(x, y, N);
        y[i] = keep;
        printf("grad y%d %.17g %.17g\n", i, dy[i], (fp - fm) / (2 * h));
    }
    return 0;
}
