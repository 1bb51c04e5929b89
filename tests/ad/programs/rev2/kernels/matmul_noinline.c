// Matrix products through a noinline row-major matmul called twice (C = A B, then
// D = C A), loss = sum of squares of D. Reference: central differences (h = 1e-6 rel).
// tol: rel=1e-6 abs=1e-9
// grads: 6
#include <math.h>
#include <stdio.h>

extern int enzyme_dup;
double __enzyme_autodiff(void *, ...);

__attribute__((noinline)) void matmul(const double *a, const double *b, double *c, int m, int k,
                                      int n) {
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++) {
            double s = 0;
            for (int l = 0; l < k; l++) s += a[i * k + l] * b[l * n + j];
            c[i * n + j] = s;
        }
}

/* A is 2x3 (params 0..5), B is the fixed 3x2 matrix below */
double loss(const double *A) {
    static const double B[6] = {1.0, -0.5, 0.25, 2.0, -1.0, 0.75};
    double C[4], D[6];
    matmul(A, B, C, 2, 3, 2); /* 2x2 */
    matmul(C, A, D, 2, 2, 3); /* 2x3 */
    double s = 0;
    for (int i = 0; i < 6; i++) s += D[i] * D[i];
    return s;
}

int main(void) {
    double A[6] = {0.3, -0.2, 0.5, 1.0, 0.4, -0.6}, dA[6] = {0};
    __enzyme_autodiff((void *)loss, enzyme_dup, A, dA);
    for (int i = 0; i < 6; i++) {
        double save = A[i], h = 1e-6 * fmax(1.0, fabs(save));
        A[i] = save + h;
        double fp = loss(A);
        A[i] = save - h;
        double fm = loss(A);
        A[i] = save;
        printf("grad dA[%d] %.17g %.17g\n", i, dA[i], (fp - fm) / (2 * h));
    }
    return 0;
}
