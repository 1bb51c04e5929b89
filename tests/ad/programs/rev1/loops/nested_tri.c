// Nested loops whose inner trip count depends on the outer index (triangular):
// f = sum_{i} sum_{j<=i} x_i x_j sin(x_j).
// tol: rel=1e-12 abs=1e-13
// grads: 7
#include <math.h>
#include <stdio.h>

extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);

double tri(const double *x, int n) {
    double s = 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j <= i; j++) s += x[i] * x[j] * sin(x[j]);
    return s;
}

int main(void) {
    enum { N = 7 };
    double x[N], dx[N] = {0};
    for (int i = 0; i < N; i++) x[i] = 0.4 * i - 1.0;
    __enzyme_autodiff((void *)tri, enzyme_dup, x, dx, enzyme_const, N);
    for (int k = 0; k < N; k++) {
        /* as x_i (i = k): sum_{j<=k} x_j sin x_j; as x_j (j = k): sum_{i>=k} x_i (sin + x cos) */
        double r = 0;
        for (int j = 0; j <= k; j++) r += x[j] * sin(x[j]);
        double q = 0;
        for (int i = k; i < N; i++) q += x[i];
        r += q * (sin(x[k]) + x[k] * cos(x[k]));
        printf("grad dx[%d] %.17g %.17g\n", k, dx[k], r);
    }
    return 0;
}
