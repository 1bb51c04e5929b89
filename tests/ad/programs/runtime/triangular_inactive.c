// Runtime activity with triangular BLAS: the triangular matrix is passed `enzyme_dup, A, A`
// (inactive at run time) to dtrsm, dtrmm (unit diagonal: the forward rule would set the
// diagonal of A's derivative memory aside and zero it, here A itself) and dtrsv, so every
// term that reads or writes its derivative is skipped. Reverse mode against central
// differences of the active inputs (A held fixed), forward mode against reverse, and A
// unchanged by the derivative calls. Both layouts.
// flags: -lopenblas -lm
// tol: rel=1e-6 abs=1e-8
// grads: 38
#include <cblas.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <enzyme/enzyme.h>

enum { M = 3, N = 2, SA = M * M, SB = M * N };

static int layout;

/* s = sum_i w_i X_i^2 + sum_i v_i y_i, X from a solve and a product with A, y = A^-1 x */
double loss(double *A, double *B, double *x) {
    int ldb = layout == CblasRowMajor ? N : M;
    cblas_dtrsm(layout, CblasLeft, CblasLower, CblasNoTrans, CblasNonUnit, M, N, 1.5, A, M, B, ldb);
    cblas_dtrmm(layout, CblasRight, CblasUpper, CblasTrans, CblasUnit, M, N, 0.5, A, M, B, ldb);
    cblas_dtrsv(layout, CblasUpper, CblasNoTrans, CblasUnit, M, A, M, x, 1);
    double s = 0;
    for (int i = 0; i < SB; i++) s += (0.5 + 0.1 * i) * B[i] * B[i];
    for (int i = 0; i < M; i++) s += (1.0 - 0.2 * i) * x[i];
    return s;
}

static double A[SA], B[SB], x[M];

static double ev(void) {
    double BB[SB], xx[M];
    memcpy(BB, B, sizeof BB);
    memcpy(xx, x, sizeof xx);
    return loss(A, BB, xx);
}

static double central(double *p) {
    double h = 1e-6, saved = *p;
    *p = saved + h;
    double up = ev();
    *p = saved - h;
    double down = ev();
    *p = saved;
    return (up - down) / (2 * h);
}

int main(void) {
    for (int i = 0; i < SA; i++) A[i] = 0.2 * sin(2.0 + i);
    for (int i = 0; i < M; i++) A[i * (M + 1)] = 2.0 + 0.5 * i;
    for (int i = 0; i < SB; i++) B[i] = cos(0.7 * i);
    for (int i = 0; i < M; i++) x[i] = sin(0.3 + i);
    for (int l = 0; l < 2; l++) {
        layout = l ? CblasColMajor : CblasRowMajor;
        double A0[SA], BB[SB], xx[M], dB[SB] = {0}, dx[M] = {0};
        memcpy(A0, A, sizeof A0);
        memcpy(BB, B, sizeof BB);
        memcpy(xx, x, sizeof xx);
        __enzyme_autodiff((void *)loss, enzyme_runtime_activity, enzyme_dup, A, A, enzyme_dup, BB, dB,
                          enzyme_dup, xx, dx);
        for (int i = 0; i < SB; i++) printf("grad L%d_rev_B%d %.17g %.17g\n", l, i, dB[i], central(&B[i]));
        for (int i = 0; i < M; i++) printf("grad L%d_rev_x%d %.17g %.17g\n", l, i, dx[i], central(&x[i]));
        for (int i = 0; i < SB + M; i++) {
            double tB[SB] = {0}, tx[M] = {0};
            if (i < SB) tB[i] = 1; else tx[i - SB] = 1;
            memcpy(BB, B, sizeof BB);
            memcpy(xx, x, sizeof xx);
            double t = __enzyme_fwddiff((void *)loss, enzyme_runtime_activity, enzyme_dup, A, A, enzyme_dup, BB, tB,
                                        enzyme_dup, xx, tx);
            printf("grad L%d_fwd_%d %.17g %.17g\n", l, i, t, i < SB ? dB[i] : dx[i - SB]);
        }
        double dev = 0;
        for (int i = 0; i < SA; i++) dev += fabs(A[i] - A0[i]);
        printf("grad L%d_inactive_unchanged %.17g %.17g\n", l, dev, 0.0);
    }
    return 0;
}
