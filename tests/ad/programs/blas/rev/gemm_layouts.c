// cblas_dgemm in reverse mode: both layouts, every transpose of A and B, leading
// dimensions larger than the matrices, alpha and beta active; then B, alpha and beta
// constant (only dA and dC are computed). Against central differences of the loss
// sum_ij W_ij C_ij (over C's whole storage, padding included).
// tol: rel=1e-6 abs=1e-8
// grads: 784
// flags: -lopenblas
#include <cblas.h>
#include "../blas_check.h"

void __enzyme_autodiff(void *, ...);
typedef struct { double alpha, beta; } Pair;

enum { M = 3, N = 2, K = 4, SA = 24, SB = 24, SC = 12 };
static int lay, ta, tb, lda, ldb, ldc;
static double W[SC];

double loss(double alpha, double *A, double *B, double beta, double *C) {
    cblas_dgemm(lay, ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
    double s = 0;
    for (int i = 0; i < SC; i++) s += W[i] * C[i];
    return s;
}

static double A0[SA], B0[SB], C0[SC], alpha0 = 1.3, beta0 = -0.7;
static double ev(void) {
    double C[SC];
    memcpy(C, C0, sizeof C);
    return loss(alpha0, A0, B0, beta0, C);
}

int main(void) {
    fill(A0, SA, 1.0);
    fill(B0, SB, 2.0);
    fill(C0, SC, 3.0);
    fill(W, SC, 4.0);
    char tag[32];
    for (int l = 0; l < 2; l++)
        for (int a = 0; a < 2; a++)
            for (int b = 0; b < 2; b++) {
                lay = l ? CblasRowMajor : CblasColMajor;
                ta = a ? CblasTrans : CblasNoTrans;
                tb = b ? CblasTrans : CblasNoTrans;
                int ar = a ? K : M, ac = a ? M : K, br = b ? N : K, bc = b ? K : N;
                lda = (l ? ac : ar) + 1;
                ldb = (l ? bc : br) + 2;
                ldc = (l ? N : M) + 1;
                double A[SA], B[SB], C[SC], dA[SA] = {0}, dB[SB] = {0}, dC[SC] = {0};
                memcpy(A, A0, sizeof A);
                memcpy(B, B0, sizeof B);
                memcpy(C, C0, sizeof C);
                Pair (*grad_all)(void *, ...) = (Pair(*)(void *, ...))__enzyme_autodiff;
                Pair d = grad_all((void *)loss, alpha0, A, dA, B, dB, beta0, C, dC);
                snprintf(tag, sizeof tag, "l%da%db%d", l, a, b);
                check_array(tag, "A", ev, A0, dA, SA);
                check_array(tag, "B", ev, B0, dB, SB);
                check_array(tag, "C", ev, C0, dC, SC);
                grad(tag, "alpha", 0, d.alpha, central(ev, &alpha0));
                grad(tag, "beta", 0, d.beta, central(ev, &beta0));

                memset(dA, 0, sizeof dA);
                memset(dC, 0, sizeof dC);
                memcpy(C, C0, sizeof C);
                __enzyme_autodiff((void *)loss, enzyme_const, alpha0, A, dA, enzyme_const, B,
                                  enzyme_const, beta0, C, dC);
                snprintf(tag, sizeof tag, "l%da%db%d.constB", l, a, b);
                check_array(tag, "A", ev, A0, dA, SA);
                check_array(tag, "C", ev, C0, dC, SC);
            }
    return 0;
}
