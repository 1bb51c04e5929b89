// Explicit SIMD code in the style of Eigen's packet math: <2 x double> loads and
// stores through `aligned(1)` vector types at odd element offsets (addresses that
// are not 16-byte aligned), and a scalar tail. The shadows are accessed exactly as
// aligned as the primal (an aligned movapd on a shadow would fault).
// tol: rel=1e-12 abs=1e-14
// grads: 7
#include <math.h>
#include <stdio.h>

typedef double v2d __attribute__((vector_size(16), aligned(1)));

void __enzyme_autodiff(void *, ...);
extern int enzyme_dup, enzyme_const;

__attribute__((noinline)) void axpy_sq(const double *x, double *y, long n, double a) {
    long i = 0;
    for (; i + 2 <= n; i += 2) {
        v2d xv = *(const v2d *)(x + i), yv = *(v2d *)(y + i);
        *(v2d *)(y + i) = yv + a * xv * xv;
    }
    for (; i < n; i++) y[i] += a * x[i] * x[i];
}

void f(const double *x, double *y, long n) { axpy_sq(x + 1, y + 1, n, 1.5); }

int main(void) {
    enum { N = 7 };
    double x[N + 1], dx[N + 1] = {0}, y[N + 1] = {0}, dy[N + 1];
    for (int i = 0; i <= N; i++) {
        x[i] = 0.3 * i - 0.5;
        dy[i] = 1.0 + i;
    }
    __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_dup, y, dy, enzyme_const, (long)N);
    for (int i = 1; i <= N; i++) printf("grad dx[%d] %.17g %.17g\n", i, dx[i], 2 * 1.5 * x[i] * (1.0 + i));
    return 0;
}
