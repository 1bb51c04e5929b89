// Split reverse mode through BLAS: __enzyme_augmentfwd runs gemm and gemv (and squares
// the result in place), the caller then overwrites A, B and x, and __enzyme_reverse
// must still produce the derivatives at the original inputs: the values the BLAS
// rules need live in the tape. Both layouts and transposes. Against central
// differences of sum_i w_i y_i.
// tol: rel=1e-6 abs=1e-8
// grads: 208
// flags: -lopenblas
#include <cblas.h>
#include "../blas_check.h"

void *__enzyme_augmentfwd(void *, ...);
void __enzyme_reverse(void *, ...);

enum { M = 3, N = 2, K = 3, SA = 9, SB = 9, SC = 6 };
static int lay, ta, tb;

void f(double *A, double *B, double *C, double *x, double *y) {
    int lda = lay == CblasRowMajor ? (ta == CblasTrans ? M : K) : (ta == CblasTrans ? K : M);
    int ldb = lay == CblasRowMajor ? (tb == CblasTrans ? K : N) : (tb == CblasTrans ? N : K);
    int ldc = lay == CblasRowMajor ? N : M;
    cblas_dgemm(lay, ta, tb, M, N, K, 1.5, A, lda, B, ldb, 0.5, C, ldc);
    for (int i = 0; i < SC; i++) C[i] = C[i] * C[i];
    cblas_dgemv(lay, CblasNoTrans, M, N, 1.0, C, ldc, x, 1, 0.0, y, 1);
}

static double A0[SA], B0[SB], C0[SC], x0[N], W[M];
static double ev(void) {
    double A[SA], B[SB], C[SC], x[N], y[M];
    memcpy(A, A0, sizeof A), memcpy(B, B0, sizeof B), memcpy(C, C0, sizeof C);
    memcpy(x, x0, sizeof x);
    f(A, B, C, x, y);
    double s = 0;
    for (int i = 0; i < M; i++) s += W[i] * y[i];
    return s;
}

int main(void) {
    fill(A0, SA, 0.5), fill(B0, SB, 1.5), fill(C0, SC, 2.5), fill(x0, N, 3.5), fill(W, M, 4.5);
    char tag[32];
    for (int l = 0; l < 2; l++)
        for (int t = 0; t < 4; t++) {
            lay = l ? CblasRowMajor : CblasColMajor;
            ta = t & 1 ? CblasTrans : CblasNoTrans;
            tb = t & 2 ? CblasTrans : CblasNoTrans;
            double A[SA], B[SB], C[SC], x[N], y[M];
            double dA[SA] = {0}, dB[SB] = {0}, dC[SC] = {0}, dx[N] = {0}, dy[M];
            memcpy(A, A0, sizeof A), memcpy(B, B0, sizeof B), memcpy(C, C0, sizeof C);
            memcpy(x, x0, sizeof x);
            void *tape = __enzyme_augmentfwd((void *)f, A, dA, B, dB, C, dC, x, dx, y, dy);
            for (int i = 0; i < SA; i++) A[i] = -7.0 * i;
            for (int i = 0; i < SB; i++) B[i] = 3.0 + i;
            x[0] = x[1] = 100.0;
            memcpy(dy, W, sizeof dy);
            __enzyme_reverse((void *)f, A, dA, B, dB, C, dC, x, dx, y, dy, tape);
            snprintf(tag, sizeof tag, "l%dt%d", l, t);
            check_array(tag, "A", ev, A0, dA, SA);
            check_array(tag, "B", ev, B0, dB, SB);
            check_array(tag, "C", ev, C0, dC, SC);
            check_array(tag, "x", ev, x0, dx, N);
        }
    return 0;
}
