// In-place Cholesky factorization (noinline) of a matrix built from the inputs,
// then log-determinant: d/dA logdet(A) = A^{-1}; inputs parametrize A = B B^T + 4 I.
// Reference: central differences of the primal, h = 1e-6 relative.
// tol: rel=1e-6 abs=1e-9
// grads: 9
#include <math.h>
#include <stdio.h>

extern int enzyme_dup;
double __enzyme_autodiff(void *, ...);

enum { N = 3 };

__attribute__((noinline)) void cholesky(double *a, int n) {
    for (int j = 0; j < n; j++) {
        for (int k = 0; k < j; k++) a[j * n + j] -= a[j * n + k] * a[j * n + k];
        a[j * n + j] = sqrt(a[j * n + j]);
        for (int i = j + 1; i < n; i++) {
            for (int k = 0; k < j; k++) a[i * n + j] -= a[i * n + k] * a[j * n + k];
            a[i * n + j] /= a[j * n + j];
        }
    }
}

double logdet(const double *b) {
    double a[N * N];
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) {
            double s = i == j ? 4.0 : 0.0;
            for (int k = 0; k < N; k++) s += b[i * N + k] * b[j * N + k];
            a[i * N + j] = s;
        }
    cholesky(a, N);
    double r = 0;
    for (int i = 0; i < N; i++) r += 2 * log(a[i * N + i]);
    return r;
}

int main(void) {
    double b[N * N], db[N * N] = {0};
    for (int i = 0; i < N * N; i++) b[i] = sin(1.3 * i + 0.5);
    __enzyme_autodiff((void *)logdet, enzyme_dup, b, db);
    for (int i = 0; i < N * N; i++) {
        double save = b[i], h = 1e-6 * fmax(1.0, fabs(save));
        b[i] = save + h;
        double fp = logdet(b);
        b[i] = save - h;
        double fm = logdet(b);
        b[i] = save;
        printf("grad db[%d] %.17g %.17g\n", i, db[i], (fp - fm) / (2 * h));
    }
    return 0;
}
