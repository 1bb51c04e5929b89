// Forward mode through memory: input and output arrays passed with enzyme_dup
// (the tangent of x in dx, the tangent of the outputs appears in dy), nested
// loops, a local scratch array and a phi-carried accumulator. A matrix-vector
// product followed by a softplus, against the analytic directional derivative.
// tol: rel=1e-12 abs=1e-14
// grads: 4
#include <math.h>
#include <stdio.h>

void __enzyme_fwddiff(void *, ...);
extern int enzyme_dup, enzyme_const, enzyme_dupnoneed;

void layer(const double *A, const double *x, double *y, int m, int n) {
    double tmp[16];
    for (int i = 0; i < m; i++) {
        double s = 0;
        for (int j = 0; j < n; j++) s += A[i * n + j] * x[j];
        tmp[i] = s;
    }
    for (int i = 0; i < m; i++) y[i] = log1p(exp(tmp[i]));
}

int main(void) {
    enum { M = 4, N = 3 };
    double A[M * N], x[N] = {0.3, -0.7, 1.1}, dx[N] = {1.0, 0.5, -2.0}, y[M], dy[M] = {0};
    for (int k = 0; k < M * N; k++) A[k] = 0.1 * (k % 5) - 0.2;
    __enzyme_fwddiff((void *)layer, enzyme_const, A, enzyme_dup, x, dx, enzyme_dupnoneed, y, dy,
                     enzyme_const, M, enzyme_const, N);
    for (int i = 0; i < M; i++) {
        double s = 0, ds = 0;
        for (int j = 0; j < N; j++) {
            s += A[i * N + j] * x[j];
            ds += A[i * N + j] * dx[j];
        }
        printf("grad dy[%d] %.17g %.17g\n", i, dy[i], ds / (1 + exp(-s)));
    }
    return 0;
}
