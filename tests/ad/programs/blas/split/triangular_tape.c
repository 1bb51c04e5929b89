// Split reverse mode through trsm, trmm and trsv: __enzyme_augmentfwd solves with A,
// squares the solution in place, multiplies by A's other triangle and solves x; the caller
// then overwrites A, B and x, and __enzyme_reverse must still produce the derivatives at
// the original inputs: the solutions the rules read (as the calls wrote them) and the old
// B of the trmm live in the tape. Both layouts, both sides, A and A^T, both triangles.
// Against central differences of sum_i W_i B_i + V_i x_i.
// tol: rel=1e-6 abs=1e-8
// grads: 368
// flags: -lopenblas
#include <cblas.h>
#include "../blas_check.h"

void *__enzyme_augmentfwd(void *, ...);
void __enzyme_reverse(void *, ...);

enum { M = 3, N = 2, LDA = 4, SA = 12, SB = 8, SV = 3 };
static int lay, side, uplo, trans;

void f(double *A, double *B, double *x) {
    int ldb = lay == CblasRowMajor ? N + 1 : M;
    int other = uplo == CblasUpper ? CblasLower : CblasUpper;
    cblas_dtrsm(lay, side, uplo, trans, CblasNonUnit, M, N, 1.3, A, LDA, B, ldb);
    for (int i = 0; i < SB; i++) B[i] = B[i] * B[i];
    cblas_dtrmm(lay, side, other, trans, CblasUnit, M, N, 0.7, A, LDA, B, ldb);
    cblas_dtrsv(lay, other, trans, CblasNonUnit, side == CblasLeft ? M : N, A, LDA, x, 1);
}

static double A0[SA], B0[SB], x0[SV], W[SB], V[SV];
static double ev(void) {
    double A[SA], B[SB], x[SV];
    memcpy(A, A0, sizeof A), memcpy(B, B0, sizeof B), memcpy(x, x0, sizeof x);
    f(A, B, x);
    double s = 0;
    for (int i = 0; i < SB; i++) s += W[i] * B[i];
    for (int i = 0; i < SV; i++) s += V[i] * x[i];
    return s;
}

int main(void) {
    fill(A0, SA, 0.5), fill(B0, SB, 1.5), fill(x0, SV, 2.5), fill(W, SB, 3.5), fill(V, SV, 4.5);
    for (int i = 0; i < SA; i++) A0[i] *= 0.4;
    for (int i = 0; i < M; i++) A0[i * (LDA + 1)] += 2.0 + 0.5 * i;
    char tag[32];
    for (int l = 0; l < 2; l++)
        for (int c = 0; c < 8; c++) {
            lay = l ? CblasRowMajor : CblasColMajor;
            side = c & 1 ? CblasRight : CblasLeft;
            trans = c & 2 ? CblasTrans : CblasNoTrans;
            uplo = c & 4 ? CblasLower : CblasUpper;
            double A[SA], B[SB], x[SV], dA[SA] = {0}, dB[SB] = {0}, dx[SV] = {0};
            memcpy(A, A0, sizeof A), memcpy(B, B0, sizeof B), memcpy(x, x0, sizeof x);
            void *tape = __enzyme_augmentfwd((void *)f, A, dA, B, dB, x, dx);
            for (int i = 0; i < SA; i++) A[i] = -7.0 * i;
            for (int i = 0; i < SB; i++) B[i] = 3.0 + i;
            for (int i = 0; i < SV; i++) x[i] = 100.0;
            memcpy(dB, W, sizeof dB), memcpy(dx, V, sizeof dx);
            __enzyme_reverse((void *)f, A, dA, B, dB, x, dx, tape);
            snprintf(tag, sizeof tag, "l%dc%d", l, c);
            check_array(tag, "A", ev, A0, dA, SA);
            check_array(tag, "B", ev, B0, dB, SB);
            check_array(tag, "x", ev, x0, dx, SV);
        }
    return 0;
}
