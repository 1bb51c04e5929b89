// Dot product with both vectors active: d/dx = y, d/dy = x.
// tol: rel=1e-12 abs=1e-14
// grads: 12
#include <stdio.h>

extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);

double dot(const double *x, const double *y, long n) {
    double s = 0;
    for (long i = 0; i < n; i++) s += x[i] * y[i];
    return s;
}

int main(void) {
    enum { N = 6 };
    double x[N], y[N], dx[N] = {0}, dy[N] = {0};
    for (int i = 0; i < N; i++) { x[i] = i + 0.5; y[i] = 2.0 - 0.75 * i; }
    __enzyme_autodiff((void *)dot, enzyme_dup, x, dx, enzyme_dup, y, dy, enzyme_const, (long)N);
    for (int i = 0; i < N; i++) {
        printf("grad dx[%d] %.17g %.17g\n", i, dx[i], y[i]);
        printf("grad dy[%d] %.17g %.17g\n", i, dy[i], x[i]);
    }
    return 0;
}
