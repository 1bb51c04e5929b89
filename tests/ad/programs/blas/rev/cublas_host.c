// cuBLAS's API (cublasDgemm_v2, cublasDgemv_v2, cublasDger_v2, cublasDdot_v2, cublasDnrm2_v2,
// cublasDaxpy_v2, cublasDscal_v2, cublasDcopy_v2: a handle first, column-major, transposes
// as cublasOperation_t, alpha and beta by pointer, float results through a pointer, a
// status returned) in reverse and forward mode. The entry points are host stubs over CBLAS
// (cublas_stubs.c, no GPU), built as a plain object like a library: enzcc sees only the
// calls and differentiates them by its BLAS rules in cuBLAS's ABI. Every transpose pair;
// against central differences.
// tol: rel=1e-6 abs=1e-8
// grads: 216
// flags: -lopenblas -lm
// objects: cublas_stubs.c
#include "../blas_check.h"
#include "cublas_host.h"

void __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

enum { M = 3, N = 2, K = 3, LD = 4, SA = 16, SB = 16, SC = 16, SV = 8 };
static cublasHandle_t handle = (cublasHandle_t)0x126;  /* never dereferenced by the stubs */
static cublasOperation_t ta, tb;

double loss(double alpha, double *A, double *B, double *C, double *x, double *y) {
    const double half = 0.5, beta = -0.4;
    double d, norm;
    cublasDgemm_v2(handle, ta, tb, M, N, K, &alpha, A, LD, B, LD, &half, C, LD);
    cublasDgemv_v2(handle, tb, M, N, &alpha, C, LD, x, 1, &beta, y, 2);
    cublasDger_v2(handle, M, N, &alpha, y, 2, x, 1, A, LD);
    cublasDdot_v2(handle, M, x, 2, y, 1, &d);
    cublasDnrm2_v2(handle, M, y, 2, &norm);
    cublasDaxpy_v2(handle, M, &alpha, x, 1, y, 1);
    cublasDscal_v2(handle, M, &alpha, y, 2);
    cublasDcopy_v2(handle, M, y, 1, x, 2);
    double s = d * norm;
    for (int i = 0; i < SC; i++) s += C[i] * (1 + 0.25 * i);
    for (int i = 0; i < SV; i++) s += (0.5 + 0.1 * i) * y[i] * y[i] + x[i] * x[i];
    for (int i = 0; i < SA; i++) s += 0.2 * A[i] * A[i];
    return s;
}

static double A0[SA], B0[SB], C0[SC], x0[SV], y0s[SV], alpha0 = 0.9;
static double ev(void) {
    double A[SA], B[SB], C[SC], x[SV], y[SV];
    memcpy(A, A0, sizeof A), memcpy(B, B0, sizeof B), memcpy(C, C0, sizeof C);
    memcpy(x, x0, sizeof x), memcpy(y, y0s, sizeof y);
    return loss(alpha0, A, B, C, x, y);
}

int main(void) {
    fill(A0, SA, 0.1), fill(B0, SB, 1.1), fill(C0, SC, 2.1), fill(x0, SV, 3.1), fill(y0s, SV, 4.1);
    char tag[32];
    for (int f = 0; f < 4; f++) {
        ta = f & 1 ? CUBLAS_OP_T : CUBLAS_OP_N, tb = f & 2 ? CUBLAS_OP_T : CUBLAS_OP_N;
        double A[SA], B[SB], C[SC], x[SV], y[SV];
        double dA[SA] = {0}, dB[SB] = {0}, dC[SC] = {0}, dx[SV] = {0}, dy[SV] = {0};
        memcpy(A, A0, sizeof A), memcpy(B, B0, sizeof B), memcpy(C, C0, sizeof C);
        memcpy(x, x0, sizeof x), memcpy(y, y0s, sizeof y);
        double (*g)(void *, ...) = (double (*)(void *, ...))__enzyme_autodiff;
        double da = g((void *)loss, alpha0, A, dA, B, dB, C, dC, x, dx, y, dy);
        snprintf(tag, sizeof tag, "rev%d", f);
        grad(tag, "alpha", 0, da, central(ev, &alpha0));
        check_array(tag, "A", ev, A0, dA, 12);
        check_array(tag, "B", ev, B0, dB, 12);
        check_array(tag, "C", ev, C0, dC, 12);
        check_array(tag, "x", ev, x0, dx, SV);
        check_array(tag, "y", ev, y0s, dy, SV);

        /* forward mode: every input moves along one direction */
        double tA[SA], tB[SB], tC[SC], tx[SV], ty[SV], talpha = 0.3;
        fill(tA, SA, 5.1), fill(tB, SB, 6.1), fill(tC, SC, 7.1), fill(tx, SV, 8.1), fill(ty, SV, 9.1);
        memcpy(A, A0, sizeof A), memcpy(B, B0, sizeof B), memcpy(C, C0, sizeof C);
        memcpy(x, x0, sizeof x), memcpy(y, y0s, sizeof y);
        double d = __enzyme_fwddiff((void *)loss, alpha0, talpha, A, tA, B, tB, C, tC, x, tx, y, ty);
        fill(tA, SA, 5.1), fill(tB, SB, 6.1), fill(tC, SC, 7.1), fill(tx, SV, 8.1), fill(ty, SV, 9.1);
        double h = 1e-6, up, down;
        for (int sgn = 1; sgn >= -1; sgn -= 2) {
            double a = alpha0 + sgn * h * talpha;
            for (int i = 0; i < SA; i++) A[i] = A0[i] + sgn * h * tA[i];
            for (int i = 0; i < SB; i++) B[i] = B0[i] + sgn * h * tB[i];
            for (int i = 0; i < SC; i++) C[i] = C0[i] + sgn * h * tC[i];
            for (int i = 0; i < SV; i++) x[i] = x0[i] + sgn * h * tx[i], y[i] = y0s[i] + sgn * h * ty[i];
            double v = loss(a, A, B, C, x, y);
            if (sgn == 1) up = v; else down = v;
        }
        snprintf(tag, sizeof tag, "fwd%d", f);
        grad(tag, "f", 0, d, (up - down) / (2 * h));
    }
    return 0;
}
