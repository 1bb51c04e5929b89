// Loops LLVM vectorizes at -O3 (restrict pointers, unit stride, a reduction and an
// element-wise map), differentiated as written by a user who builds with -O3.
// tol: rel=1e-12 abs=1e-13
// grads: 14
#include <math.h>
#include <stdio.h>

extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);

double saxpy_norm(const double *restrict x, const double *restrict y, double *restrict z,
                  double a, int n) {
    for (int i = 0; i < n; i++) z[i] = a * x[i] + y[i];
    double s = 0;
    for (int i = 0; i < n; i++) s += z[i] * z[i];
    return s;
}

int main(void) {
    enum { N = 7 };
    double x[N], y[N], z[N], dx[N] = {0}, dy[N] = {0}, dz[N] = {0};
    for (int i = 0; i < N; i++) { x[i] = sin(i + 1.0); y[i] = 0.1 * i; }
    double a = 1.3;
    __enzyme_autodiff((void *)saxpy_norm, enzyme_dup, x, dx, enzyme_dup, y, dy, enzyme_dup, z,
                      dz, enzyme_const, a, enzyme_const, N);
    for (int i = 0; i < N; i++) {
        double zi = a * x[i] + y[i];
        printf("grad dx[%d] %.17g %.17g\n", i, dx[i], 2 * zi * a);
        printf("grad dy[%d] %.17g %.17g\n", i, dy[i], 2 * zi);
    }
    return 0;
}
