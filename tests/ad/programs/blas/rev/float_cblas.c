// Single precision: cblas_sgemm, sgemv, ssymv, sger, ssyrk, sdot, snrm2, sasum, saxpy,
// sscal and scopy in one loss, reverse mode, both layouts and transposes. The
// reference is the central difference of the same loss written with the d routines,
// evaluated in double at the same (float) inputs; float AD carries ~1e-7 relative
// rounding per operation, hence rel=1e-5.
// tol: rel=1e-5 abs=1e-5
// grads: 196
// flags: -lopenblas
#include <cblas.h>
#include "../blas_check.h"

void __enzyme_autodiff(void *, ...);

enum { M = 3, N = 2, K = 3, SA = 12, SB = 12, SC = 12, SV = 6 };
static int lay, ta, tb, lda, ldb, ldc;

#define LOSS(T, P)                                                                         \
    T loss_##P(T alpha, T *A, T *B, T *C, T *x, T *y) {                                    \
        cblas_##P##gemm(lay, ta, tb, M, N, K, alpha, A, lda, B, ldb, (T)0.5, C, ldc);       \
        cblas_##P##gemv(lay, CblasNoTrans, M, N, alpha, C, ldc, x, 1, (T)-0.3, y, 2);      \
        cblas_##P##symv(lay, CblasUpper, N, (T)1.1, B, ldb, x, 1, alpha, y, 1);            \
        cblas_##P##ger(lay, M, N, (T)0.4, y, 1, x, 2, A, lda);                             \
        cblas_##P##syrk(lay, CblasLower, ta, M, K, (T)0.6, A, lda, alpha, C, ldc);         \
        T s = cblas_##P##dot(SV / 2, x, 2, y, 2) + cblas_##P##nrm2(SV, y, 1);              \
        s += cblas_##P##asum(SV, y, 1);                                                    \
        cblas_##P##axpy(SV, alpha, y, 1, x, 1);                                            \
        cblas_##P##scal(SV / 2, alpha, x, -2);                                             \
        cblas_##P##copy(SV / 2, x, 2, y, -1);                                              \
        for (int i = 0; i < SC; i++) s += C[i] * (T)(1 + 0.25 * i);                        \
        for (int i = 0; i < SV; i++) s += (T)(0.5 + 0.1 * i) * y[i] * y[i] + x[i];          \
        for (int i = 0; i < SA; i++) s += (T)0.2 * A[i] * A[i];                            \
        return s;                                                                          \
    }
LOSS(float, s)
LOSS(double, d)

static double A0[SA], B0[SB], C0[SC], x0[SV], y0s[SV], alpha0 = 0.9;
static double ev(void) {
    double A[SA], B[SB], C[SC], x[SV], y[SV];
    memcpy(A, A0, sizeof A);
    memcpy(B, B0, sizeof B);
    memcpy(C, C0, sizeof C);
    memcpy(x, x0, sizeof x);
    memcpy(y, y0s, sizeof y);
    return loss_d(alpha0, A, B, C, x, y);
}

static void to_float(float *f, double *d, int n) {
    for (int i = 0; i < n; i++) d[i] = f[i] = (float)d[i];
}

int main(void) {
    alpha0 = (float)alpha0;
    fill(A0, SA, 0.1);
    fill(B0, SB, 1.1);
    fill(C0, SC, 2.1);
    fill(x0, SV, 3.1);
    fill(y0s, SV, 4.1);
    float A[SA], B[SB], C[SC], x[SV], y[SV];
    float dA[SA], dB[SB], dC[SC], dx[SV], dy[SV];
    char tag[32];
    for (int l = 0; l < 2; l++)
        for (int t = 0; t < 2; t++) {
            lay = l ? CblasRowMajor : CblasColMajor;
            ta = t ? CblasTrans : CblasNoTrans;
            tb = t ? CblasNoTrans : CblasTrans;
            lda = ldb = ldc = 3;
            to_float(A, A0, SA);
            to_float(B, B0, SB);
            to_float(C, C0, SC);
            to_float(x, x0, SV);
            to_float(y, y0s, SV);
            memset(dA, 0, sizeof dA);
            memset(dB, 0, sizeof dB);
            memset(dC, 0, sizeof dC);
            memset(dx, 0, sizeof dx);
            memset(dy, 0, sizeof dy);
            float (*g)(void *, ...) = (float (*)(void *, ...))__enzyme_autodiff;
            float da = g((void *)loss_s, (float)alpha0, A, dA, B, dB, C, dC, x, dx, y, dy);
            snprintf(tag, sizeof tag, "l%dt%d", l, t);
            for (int i = 0; i < SA; i++) grad(tag, "A", i, dA[i], central(ev, &A0[i]));
            for (int i = 0; i < SB; i++) grad(tag, "B", i, dB[i], central(ev, &B0[i]));
            for (int i = 0; i < SC; i++) grad(tag, "C", i, dC[i], central(ev, &C0[i]));
            for (int i = 0; i < SV; i++) grad(tag, "x", i, dx[i], central(ev, &x0[i]));
            for (int i = 0; i < SV; i++) grad(tag, "y", i, dy[i], central(ev, &y0s[i]));
            grad(tag, "alpha", 0, da, central(ev, &alpha0));
        }
    return 0;
}
