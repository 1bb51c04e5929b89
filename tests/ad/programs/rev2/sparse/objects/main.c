// A tridiagonal matrix (three stored diagonals) used as a dense n x n matrix through
// __enzyme_todense, with the dense matrix-vector product and the view's functions in
// another translation unit: objects from `enzcc -c`, linked by enzcc, which lowers
// the view and differentiates across both. Reference: the analytic gradient of
// 0.5 |A x|^2 with respect to the diagonals (dA_ij = y_i x_j) and to x (A^T y).
// tol: rel=1e-12 abs=1e-14
// grads: 14
// build: make
#include <stdio.h>
#include "banded.h"

extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);
double *__enzyme_todense(void *, void *, ...);

enum { N = 4 };

static double half_norm(double *diag, double *lower, double *upper, const double *x) {
    double *a = __enzyme_todense((void *)band_load, (void *)band_store, diag, lower, upper, N);
    double y[N];
    matvec(a, x, y, N);
    double s = 0.0;
    for (int i = 0; i < N; i++)
        s += 0.5 * y[i] * y[i];
    return s;
}

int main(void) {
    double diag[N] = {2.0, -1.0, 0.5, 3.0}, lower[N - 1] = {0.3, -0.7, 1.1}, upper[N - 1] = {-0.2, 0.9, 0.4};
    double x[N] = {1.0, -2.0, 0.5, 0.25};
    double dd[N] = {0}, dl[N - 1] = {0}, du[N - 1] = {0}, dx[N] = {0};
    __enzyme_autodiff((void *)half_norm, enzyme_dup, diag, dd, enzyme_dup, lower, dl, enzyme_dup, upper, du,
                      enzyme_dup, x, dx);
    double y[N];
    for (int i = 0; i < N; i++)
        y[i] = diag[i] * x[i] + (i > 0 ? lower[i - 1] * x[i - 1] : 0.0) + (i + 1 < N ? upper[i] * x[i + 1] : 0.0);
    for (int i = 0; i < N; i++)
        printf("grad diag[%d] %.17g %.17g\n", i, dd[i], y[i] * x[i]);
    for (int j = 0; j + 1 < N; j++) {
        printf("grad lower[%d] %.17g %.17g\n", j, dl[j], y[j + 1] * x[j]);
        printf("grad upper[%d] %.17g %.17g\n", j, du[j], y[j] * x[j + 1]);
    }
    for (int j = 0; j < N; j++) {
        double ref = diag[j] * y[j] + (j + 1 < N ? lower[j] * y[j + 1] : 0.0) + (j > 0 ? upper[j - 1] * y[j - 1] : 0.0);
        printf("grad x[%d] %.17g %.17g\n", j, dx[j], ref);
    }
    return 0;
}
