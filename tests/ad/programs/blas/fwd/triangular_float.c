// Forward mode in single precision: cblas_strsm, strmm, strsv and the Fortran strsm_ and
// strmv_ in one chain, both layouts (the Fortran calls read the same storage
// column-major), both sides, both triangles, A and A^T, unit and non-unit diagonal. The
// reference is the central difference, along the same direction, of the same function
// written with the d routines and evaluated in double at the same (float) inputs; float AD
// carries ~1e-7 relative rounding per operation, hence rel=1e-5.
// tol: rel=1e-5 abs=1e-5
// grads: 800
// flags: -lopenblas
#include <cblas.h>
#include "../blas_check.h"

float __enzyme_fwddiff(void *, ...);

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

#define FUNCTION(T, P)                                                                        \
    T f_##P(T alpha, T *A, T *B, T *x) {                                                      \
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
FUNCTION(float, s)
FUNCTION(double, d)

static double A0[SA], B0[SB], x0[SV], alpha0 = 0.9, dA0[SA], dB0[SB], dx0[SV], dalpha0 = -0.3;
static double Bout[SB], xout[SV];

static void move(double *to, const double *base, const double *dir, int len, double t) {
    for (int i = 0; i < len; i++) to[i] = base[i] + t * dir[i];
}

static double at(double t) {
    double A[SA];
    move(A, A0, dA0, SA, t), move(Bout, B0, dB0, SB, t), move(xout, x0, dx0, SV, t);
    return f_d(alpha0 + t * dalpha0, A, Bout, xout);
}

static void rounded(float *to, double *from, int len) {
    for (int i = 0; i < len; i++) from[i] = to[i] = (float)from[i];
}

int main(void) {
    fill(B0, SB, 2.1), fill(x0, SV, 3.1), fill(dA0, SA, 5.1), fill(dB0, SB, 6.1), fill(dx0, SV, 7.1);
    alpha0 = (float)alpha0, dalpha0 = (float)dalpha0;
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
                    float A[SA], B[SB], x[SV], dA[SA], dB[SB], dx[SV];
                    rounded(A, A0, SA), rounded(B, B0, SB), rounded(x, x0, SV);
                    rounded(dA, dA0, SA), rounded(dB, dB0, SB), rounded(dx, dx0, SV);
                    float d1 = __enzyme_fwddiff((void *)f_s, (float)alpha0, (float)dalpha0, A, dA, B, dB, x, dx);
                    double h = 1e-6, Bu[SB], xu[SV], up = at(h);
                    memcpy(Bu, Bout, sizeof Bu), memcpy(xu, xout, sizeof xu);
                    double down = at(-h);
                    snprintf(tag, sizeof tag, "l%ds%du%dt%dd%d", l, s, u, t, d);
                    grad(tag, "f", 0, d1, (up - down) / (2 * h));
                    for (int i = 0; i < SB; i++) grad(tag, "B", i, dB[i], (Bu[i] - Bout[i]) / (2 * h));
                    for (int i = 0; i < SV; i++) grad(tag, "x", i, dx[i], (xu[i] - xout[i]) / (2 * h));
                }
    return 0;
}
