// Single precision: cblas_strsm, strmm, strsv and the Fortran strsm_ and strmv_ in one
// chain, reverse mode, both layouts (the Fortran calls read the same storage column-major),
// both sides, both triangles, A and A^T, unit and non-unit diagonal, leading dimensions
// larger than the matrices. The reference is the central difference of the same loss
// written with the d routines, evaluated in double at the same (float) inputs; float AD
// carries ~1e-7 relative rounding per operation, hence rel=1e-5.
// tol: rel=1e-5 abs=1e-5
// grads: 1440
// flags: -lopenblas
#include <cblas.h>
#include "../blas_check.h"

void __enzyme_autodiff(void *, ...);

#define DECLARE(T, P)                                                                            \
    void P##trsm_(const char *, const char *, const char *, const char *, const int *,            \
                  const int *, const T *, const T *, const int *, T *, const int *);              \
    void P##trmv_(const char *, const char *, const char *, const int *, const T *, const int *,  \
                  T *, const int *);
DECLARE(float, s)
DECLARE(double, d)

enum { M = 3, N = 2, SA = 20, SB = 16, SV = 8 };
static int lay, side, uplo, trans, diag, lda, ldb, k;
static char fside, fuplo, ftrans, fdiag;

#define LOSS(T, P)                                                                            \
    T loss_##P(T alpha, T *A, T *B, T *x) {                                                   \
        const int m = M, n = N, fldb = M + 2, two = 2;                                        \
        const T scale = (T)0.6;                                                               \
        cblas_##P##trsm(lay, side, uplo, trans, diag, M, N, alpha, A, lda, B, ldb);           \
        cblas_##P##trmm(lay, side, uplo == CblasUpper ? CblasLower : CblasUpper, trans, diag, \
                        M, N, (T)0.8, A, lda, B, ldb);                                        \
        P##trsm_(&fside, &fuplo, &ftrans, &fdiag, &m, &n, &scale, A, &lda, B + 1, &fldb);     \
        cblas_##P##trsv(lay, uplo, trans == CblasTrans ? CblasNoTrans : CblasTrans, diag, k,  \
                        A, lda, x, 2);                                                        \
        P##trmv_(&fuplo, &ftrans, &fdiag, &k, A, &lda, x, &two);                              \
        T s = 0;                                                                              \
        for (int i = 0; i < SB; i++) s += (T)(1 + 0.25 * i) * B[i] + (T)0.3 * B[i] * B[i];    \
        for (int i = 0; i < SV; i++) s += (T)(0.5 + 0.1 * i) * x[i] * x[i] + x[i];            \
        return s;                                                                             \
    }
LOSS(float, s)
LOSS(double, d)

static double A0[SA], B0[SB], x0[SV], alpha0 = 0.9;
static double ev(void) {
    double A[SA], B[SB], x[SV];
    memcpy(A, A0, sizeof A);
    memcpy(B, B0, sizeof B);
    memcpy(x, x0, sizeof x);
    return loss_d(alpha0, A, B, x);
}

static void to_float(float *f, double *d, int len) {
    for (int i = 0; i < len; i++) d[i] = f[i] = (float)d[i];
}

int main(void) {
    alpha0 = (float)alpha0;
    fill(B0, SB, 2.1);
    fill(x0, SV, 3.1);
    char tag[32];
    for (int l = 0; l < 2; l++)
        for (int s = 0; s < 2; s++)
            for (int u = 0; u < 2; u++)
                for (int td = 0; td < 4; td++) {
                    int t = td & 1, d = td >> 1;
                    lay = l ? CblasRowMajor : CblasColMajor;
                    side = s ? CblasRight : CblasLeft;
                    uplo = u ? CblasLower : CblasUpper;
                    trans = t ? CblasTrans : CblasNoTrans;
                    diag = d ? CblasUnit : CblasNonUnit;
                    fside = s ? 'R' : 'l', fuplo = u ? 'u' : 'L', ftrans = t ? 'n' : 'T', fdiag = d ? 'N' : 'u';
                    k = s ? N : M;
                    lda = k + 1;
                    ldb = l ? N + 1 : M + 2;
                    fill(A0, SA, 0.1);
                    for (int i = 0; i < SA; i++) A0[i] *= 0.4;
                    for (int i = 0; i < k; i++) A0[i * (lda + 1)] += 2.0 + 0.5 * i;
                    float A[SA], B[SB], x[SV], dA[SA] = {0}, dB[SB] = {0}, dx[SV] = {0};
                    to_float(A, A0, SA);
                    to_float(B, B0, SB);
                    to_float(x, x0, SV);
                    float (*g)(void *, ...) = (float (*)(void *, ...))__enzyme_autodiff;
                    float da = g((void *)loss_s, (float)alpha0, A, dA, B, dB, x, dx);
                    snprintf(tag, sizeof tag, "l%ds%du%dt%dd%d", l, s, u, t, d);
                    for (int i = 0; i < SA; i++) grad(tag, "A", i, dA[i], central(ev, &A0[i]));
                    for (int i = 0; i < SB; i++) grad(tag, "B", i, dB[i], central(ev, &B0[i]));
                    for (int i = 0; i < SV; i++) grad(tag, "x", i, dx[i], central(ev, &x0[i]));
                    grad(tag, "alpha", 0, da, central(ev, &alpha0));
                }
    return 0;
}
