// y = A x written to a dup output array whose shadow is seeded with dy:
// reverse mode gives dA += dy x^T and dx += A^T dy; the output shadow is consumed.
// tol: rel=1e-12 abs=1e-14
// grads: 17
#include <stdio.h>

extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);

enum { M = 3, N = 4 };

void matvec(const double *A, const double *x, double *y, int m, int n) {
    for (int i = 0; i < m; i++) {
        double s = 0;
        for (int j = 0; j < n; j++) s += A[i * n + j] * x[j];
        y[i] = s;
    }
}

int main(void) {
    double A[M * N], dA[M * N] = {0}, x[N], dx[N] = {0}, y[M], dy[M], seed[M];
    for (int k = 0; k < M * N; k++) A[k] = 0.25 * k - 1.0;
    for (int j = 0; j < N; j++) x[j] = 1.0 + 0.5 * j;
    for (int i = 0; i < M; i++) seed[i] = dy[i] = 1.5 - i;
    __enzyme_autodiff((void *)matvec, enzyme_dup, A, dA, enzyme_dup, x, dx, enzyme_dup, y, dy,
                      enzyme_const, M, enzyme_const, N);
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++)
            printf("grad dA[%d][%d] %.17g %.17g\n", i, j, dA[i * N + j], seed[i] * x[j]);
    for (int j = 0; j < N; j++) {
        double r = 0;
        for (int i = 0; i < M; i++) r += A[i * N + j] * seed[i];
        printf("grad dx[%d] %.17g %.17g\n", j, dx[j], r);
    }
    /* the primal output was computed too */
    double y0 = 0;
    for (int j = 0; j < N; j++) y0 += A[j] * x[j];
    printf("grad primal_y0 %.17g %.17g\n", y[0], y0);
    return 0;
}
