// Forward mode through cblas_dtrsm, dtrmm, dtrsv and dtrmv: both layouts, both sides, both
// triangles, A and A^T, unit and non-unit diagonal, leading dimensions larger than the
// matrices, increments 1 and -2. Every input moves along a direction (the entries of A the
// routine does not read too: their direction must not show in the tangent); then A
// constant, then alpha constant. Checked: the tangent of the result and of every entry of
// B (x), against central differences along the same direction; and that the direction
// passed for A is left as it was (the rules set its diagonal aside for a unit triangle).
// tol: rel=1e-6 abs=1e-8
// grads: 3072
// flags: -lopenblas
#include <cblas.h>
#include "../blas_check.h"

double __enzyme_fwddiff(void *, ...);

enum { M = 3, N = 2, SA = 16, SB = 12, SV = 6 };
static int lay, side, uplo, trans, diag, lda, ldb, inc, solve;
static double W[SB];

static double out_loss(const double *B, int len) {
    double s = 0;
    for (int i = 0; i < len; i++) s += W[i] * B[i] + 0.3 * B[i] * B[i];
    return s;
}

double f_m(double alpha, double *A, double *B) {
    if (solve)
        cblas_dtrsm(lay, side, uplo, trans, diag, M, N, alpha, A, lda, B, ldb);
    else
        cblas_dtrmm(lay, side, uplo, trans, diag, M, N, alpha, A, lda, B, ldb);
    return out_loss(B, SB);
}

double f_v(double *A, double *x) {
    if (solve)
        cblas_dtrsv(lay, uplo, trans, diag, M, A, lda, x, inc);
    else
        cblas_dtrmv(lay, uplo, trans, diag, M, A, lda, x, inc);
    return out_loss(x, SV);
}

static double Abase[SA], A0[SA], B0[SB], x0[SV], alpha0 = 0.8;
static double dA0[SA], dB0[SB], dx0[SV], dalpha0 = -0.6;
static double out[SB];
static int vector;

static void move(double *to, const double *base, const double *dir, int len, double t) {
    for (int i = 0; i < len; i++) to[i] = base[i] + t * dir[i];
}

static double at(double t) {
    double A[SA];
    move(A, A0, dA0, SA, t);
    if (vector) {
        move(out, x0, dx0, SV, t);
        return f_v(A, out);
    }
    move(out, B0, dB0, SB, t);
    return f_m(alpha0 + t * dalpha0, A, out);
}

static void check(const char *tag, double d, const double *tangent, int len) {
    double h = 1e-6, up_out[SB];
    double up = at(h);
    memcpy(up_out, out, sizeof up_out);
    double down = at(-h);
    grad(tag, "f", 0, d, (up - down) / (2 * h));
    for (int i = 0; i < len; i++) grad(tag, "out", i, tangent[i], (up_out[i] - out[i]) / (2 * h));
}

static void check_direction_kept(const char *tag, const double *dA) {
    int changed = 0;
    for (int i = 0; i < SA; i++) changed += dA[i] != dA0[i];
    grad(tag, "dA_changed", 0, changed, 0);
}

static void setup_A(int k) {
    for (int i = 0; i < SA; i++) A0[i] = 0.4 * Abase[i];
    for (int i = 0; i < k; i++) A0[i * (lda + 1)] += 2.0 + 0.5 * i;
}

static void matrix_case(const char *case_tag) {
    int k = side == CblasLeft ? M : N;
    lda = k + 1;
    ldb = lay == CblasColMajor ? M + 1 : N + 2;
    setup_A(k);
    vector = 0;
    char tag[64];
    for (int v = 0; v < 3; v++) {
        double A[SA], B[SB], dA[SA], dB[SB], saved_dA[SA], saved_dalpha = dalpha0, d;
        memcpy(saved_dA, dA0, sizeof saved_dA);
        memcpy(A, A0, sizeof A), memcpy(B, B0, sizeof B);
        memcpy(dA, dA0, sizeof dA), memcpy(dB, dB0, sizeof dB);
        snprintf(tag, sizeof tag, "%s.v%d", case_tag, v);
        if (v == 0) {
            d = __enzyme_fwddiff((void *)f_m, alpha0, dalpha0, A, dA, B, dB);
            check_direction_kept(tag, dA);
        } else if (v == 1) {
            d = __enzyme_fwddiff((void *)f_m, alpha0, dalpha0, enzyme_const, A, B, dB);
            memset(dA0, 0, sizeof dA0);
        } else {
            d = __enzyme_fwddiff((void *)f_m, enzyme_const, alpha0, A, dA, B, dB);
            dalpha0 = 0;
        }
        check(tag, d, dB, SB);
        memcpy(dA0, saved_dA, sizeof saved_dA), dalpha0 = saved_dalpha;
    }
}

static void vector_case(const char *tag) {
    lda = M + 1;
    setup_A(M);
    vector = 1;
    double A[SA], x[SV], dA[SA], dx[SV];
    memcpy(A, A0, sizeof A), memcpy(x, x0, sizeof x);
    memcpy(dA, dA0, sizeof dA), memcpy(dx, dx0, sizeof dx);
    double d = __enzyme_fwddiff((void *)f_v, A, dA, x, dx);
    check_direction_kept(tag, dA);
    check(tag, d, dx, SV);
}

int main(void) {
    fill(Abase, SA, 1.0), fill(B0, SB, 2.0), fill(x0, SV, 3.0), fill(W, SB, 4.0);
    fill(dA0, SA, 5.0), fill(dB0, SB, 6.0), fill(dx0, SV, 7.0);
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
