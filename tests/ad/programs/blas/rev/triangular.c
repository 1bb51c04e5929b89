// cblas_dtrsm, dtrmm, dtrsv and dtrmv in reverse mode: both layouts, both sides, both
// triangles, A and A^T, unit and non-unit diagonal, leading dimensions larger than the
// matrices, increments 1 and -2; alpha active, then alpha constant, then A constant.
// Against central differences of sum_i W_i B_i + 0.3 B_i^2 over B's (x's) whole storage.
// The entries of A a routine does not read (the other triangle, the diagonal when it is
// unit, the padding) have a reference of exactly 0, and one more line per case counts
// those whose adjoint is not exactly 0 (reference 0).
// tol: rel=1e-6 abs=1e-8
// grads: 4736
// flags: -lopenblas
#include <cblas.h>
#include "../blas_check.h"

void __enzyme_autodiff(void *, ...);

enum { M = 3, N = 2, SA = 16, SB = 12, SV = 6 };
static int lay, side, uplo, trans, diag, lda, ldb, inc, solve;
static double W[SB];

static double out_loss(const double *B, int len) {
    double s = 0;
    for (int i = 0; i < len; i++) s += W[i] * B[i] + 0.3 * B[i] * B[i];
    return s;
}

double loss_m(double alpha, double *A, double *B) {
    if (solve)
        cblas_dtrsm(lay, side, uplo, trans, diag, M, N, alpha, A, lda, B, ldb);
    else
        cblas_dtrmm(lay, side, uplo, trans, diag, M, N, alpha, A, lda, B, ldb);
    return out_loss(B, SB);
}

double loss_v(double *A, double *x) {
    if (solve)
        cblas_dtrsv(lay, uplo, trans, diag, M, A, lda, x, inc);
    else
        cblas_dtrmv(lay, uplo, trans, diag, M, A, lda, x, inc);
    return out_loss(x, SV);
}

static double Abase[SA], A0[SA], B0[SB], x0[SV], alpha0 = 0.8;
static double ev_m(void) {
    double B[SB];
    memcpy(B, B0, sizeof B);
    return loss_m(alpha0, A0, B);
}
static double ev_v(void) {
    double x[SV];
    memcpy(x, x0, sizeof x);
    return loss_v(A0, x);
}

/* A of order k with leading dimension lda: small off the diagonal, about 2 on it */
static void setup_A(int k) {
    for (int i = 0; i < SA; i++) A0[i] = 0.4 * Abase[i];
    for (int i = 0; i < k; i++) A0[i * (lda + 1)] += 2.0 + 0.5 * i;
}

/* whether the routine reads storage entry idx of A (order k) */
static int is_read(int idx, int k) {
    int r = lay == CblasColMajor ? idx % lda : idx / lda, c = lay == CblasColMajor ? idx / lda : idx % lda;
    if (r >= k || c >= k || (diag == CblasUnit && r == c)) return 0;
    return uplo == CblasUpper ? r <= c : r >= c;
}

static void check_unread(const char *tag, const double *dA, int k) {
    int nonzero = 0;
    for (int i = 0; i < SA; i++)
        if (!is_read(i, k) && dA[i] != 0) nonzero++;
    grad(tag, "unread_nonzero", 0, nonzero, 0);
}

static void matrix_case(const char *case_tag) {
    int k = side == CblasLeft ? M : N;
    lda = k + 1;
    ldb = lay == CblasColMajor ? M + 1 : N + 2;
    setup_A(k);
    char tag[64];
    double (*g)(void *, ...) = (double (*)(void *, ...))__enzyme_autodiff;
    for (int v = 0; v < (diag == CblasNonUnit ? 3 : 1); v++) {
        double A[SA], B[SB], dA[SA] = {0}, dB[SB] = {0}, da = 0;
        memcpy(A, A0, sizeof A);
        memcpy(B, B0, sizeof B);
        snprintf(tag, sizeof tag, "%s.v%d", case_tag, v);
        if (v == 0)
            da = g((void *)loss_m, alpha0, A, dA, B, dB);
        else if (v == 1)
            __enzyme_autodiff((void *)loss_m, enzyme_const, alpha0, A, dA, B, dB);
        else
            da = g((void *)loss_m, alpha0, enzyme_const, A, B, dB);
        if (v < 2) {
            check_array(tag, "A", ev_m, A0, dA, SA);
            check_unread(tag, dA, k);
        }
        check_array(tag, "B", ev_m, B0, dB, SB);
        if (v != 1) grad(tag, "alpha", 0, da, central(ev_m, &alpha0));
    }
}

static void vector_case(const char *tag) {
    lda = M + 1;
    setup_A(M);
    double A[SA], x[SV], dA[SA] = {0}, dx[SV] = {0};
    memcpy(A, A0, sizeof A);
    memcpy(x, x0, sizeof x);
    __enzyme_autodiff((void *)loss_v, A, dA, x, dx);
    check_array(tag, "A", ev_v, A0, dA, SA);
    check_unread(tag, dA, M);
    check_array(tag, "x", ev_v, x0, dx, SV);
}

int main(void) {
    fill(Abase, SA, 1.0);
    fill(B0, SB, 2.0);
    fill(x0, SV, 3.0);
    fill(W, SB, 4.0);
    char tag[64];
    for (solve = 0; solve < 2; solve++)
        for (int l = 0; l < 2; l++)
            for (int u = 0; u < 2; u++)
                for (int t = 0; t < 2; t++)
                    for (int d = 0; d < 2; d++) {
                        lay = l ? CblasRowMajor : CblasColMajor;
                        uplo = u ? CblasLower : CblasUpper;
                        trans = t ? CblasTrans : CblasNoTrans;
                        diag = d ? CblasUnit : CblasNonUnit;
                        for (int s = 0; s < 2; s++) {
                            side = s ? CblasRight : CblasLeft;
                            snprintf(tag, sizeof tag, "%s.l%ds%du%dt%dd%d", solve ? "trsm" : "trmm", l, s, u, t, d);
                            matrix_case(tag);
                        }
                        for (int i = 0; i < 2; i++) {
                            inc = i ? -2 : 1;
                            snprintf(tag, sizeof tag, "%s.l%du%dt%dd%di%d", solve ? "trsv" : "trmv", l, u, t, d, i);
                            vector_case(tag);
                        }
                    }
    return 0;
}
