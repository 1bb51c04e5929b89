// Forward mode through CBLAS in double: gemm, gemv, symv, ger, syrk, dot, nrm2, asum,
// axpy, scal and copy in one function, both layouts, every transpose pair, increments
// including negative ones, leading dimensions larger than the matrices; every input
// (alpha and beta too) moves along a direction. Checked: the tangent of the result and
// of every entry of C and y, against central differences along the same direction;
// then again with B and beta constant.
// tol: rel=1e-6 abs=1e-8
// grads: 400
// flags: -lopenblas
#include <cblas.h>
#include "../blas_check.h"

double __enzyme_fwddiff(void *, ...);

enum { M = 3, N = 2, K = 3, SA = 16, SB = 16, SC = 16, SV = 8 };
static int lay, ta, tb, ix, iy;
static const int lda = 4, ldb = 4, ldc = 4;

double f(double alpha, double *A, double *B, double beta, double *C, double *x, double *y) {
    cblas_dgemm(lay, ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
    cblas_dgemv(lay, tb, M, N, alpha, C, ldc, x, ix, beta, y, iy);
    cblas_dsymv(lay, ta == CblasTrans ? CblasUpper : CblasLower, N, beta, B, ldb, y, iy, alpha, x, ix);
    cblas_dger(lay, M, N, alpha, y, 1, x, 2, A, lda);
    cblas_dsyrk(lay, CblasLower, ta, M, K, beta, A, lda, alpha, C, ldc);
    double s = cblas_ddot(3, x, ix, y, iy) + cblas_dnrm2(SV / 2, y, 2) + cblas_dasum(SV, x, 1);
    cblas_daxpy(3, alpha, x, ix, y, iy);
    cblas_dscal(SV / 2, beta, y, 2);
    cblas_dcopy(3, y, iy, x, ix);
    for (int i = 0; i < SV; i++) s += (0.5 + 0.1 * i) * y[i] * x[i];
    return s;
}

/* the inputs, their direction, and the outputs at base + t * direction */
static double A0[SA], B0[SB], C0[SC], x0[SV], y0s[SV], ab0[2] = {0.9, -0.6};
static double dA0[SA], dB0[SB], dC0[SC], dx0[SV], dy0[SV], dab0[2] = {0.4, 0.7};
static double Cout[SC], yout[SV];

static void move(double *out, const double *base, const double *dir, int n, double t) {
    for (int i = 0; i < n; i++) out[i] = base[i] + t * dir[i];
}

static double at(double t) {
    double A[SA], B[SB], x[SV], ab[2];
    move(A, A0, dA0, SA, t);
    move(B, B0, dB0, SB, t);
    move(Cout, C0, dC0, SC, t);
    move(x, x0, dx0, SV, t);
    move(yout, y0s, dy0, SV, t);
    move(ab, ab0, dab0, 2, t);
    return f(ab[0], A, B, ab[1], Cout, x, yout);
}

/* the result's and the outputs' derivatives along the direction, by central differences */
static double fd(double *dC, double *dy) {
    double h = 1e-6, Cu[SC], yu[SV];
    double up = at(h);
    memcpy(Cu, Cout, sizeof Cu);
    memcpy(yu, yout, sizeof yu);
    double down = at(-h);
    for (int i = 0; i < SC; i++) dC[i] = (Cu[i] - Cout[i]) / (2 * h);
    for (int i = 0; i < SV; i++) dy[i] = (yu[i] - yout[i]) / (2 * h);
    return (up - down) / (2 * h);
}

static void check(const char *tag, double d, const double *tC, const double *ty) {
    double rC[SC], ry[SV], r = fd(rC, ry);
    grad(tag, "f", 0, d, r);
    for (int i = 0; i < SC; i++) grad(tag, "C", i, tC[i], rC[i]);
    for (int i = 0; i < SV; i++) grad(tag, "y", i, ty[i], ry[i]);
}

int main(void) {
    static const int incs[4][2] = {{1, 1}, {2, -1}, {-1, 2}, {1, 1}};
    fill(A0, SA, 0.1), fill(B0, SB, 1.1), fill(C0, SC, 2.1), fill(x0, SV, 3.1), fill(y0s, SV, 4.1);
    fill(dA0, SA, 5.1), fill(dB0, SB, 6.1), fill(dC0, SC, 7.1), fill(dx0, SV, 8.1), fill(dy0, SV, 9.1);
    char tag[32];
    for (int l = 0; l < 2; l++)
        for (int t = 0; t < 4; t++) {
            lay = l ? CblasRowMajor : CblasColMajor;
            ta = t & 1 ? CblasTrans : CblasNoTrans;
            tb = t & 2 ? CblasTrans : CblasNoTrans;
            ix = incs[t][0], iy = incs[t][1];
            double A[SA], B[SB], C[SC], x[SV], y[SV], dA[SA], dB[SB], dC[SC], dx[SV], dy[SV];
            memcpy(A, A0, sizeof A), memcpy(B, B0, sizeof B), memcpy(C, C0, sizeof C);
            memcpy(x, x0, sizeof x), memcpy(y, y0s, sizeof y);
            memcpy(dA, dA0, sizeof A), memcpy(dB, dB0, sizeof B), memcpy(dC, dC0, sizeof C);
            memcpy(dx, dx0, sizeof x), memcpy(dy, dy0, sizeof y);
            double d = __enzyme_fwddiff((void *)f, ab0[0], dab0[0], A, dA, B, dB, ab0[1], dab0[1], C,
                                        dC, x, dx, y, dy);
            snprintf(tag, sizeof tag, "l%dt%d", l, t);
            check(tag, d, dC, dy);

            /* B and beta constant: their direction is zero */
            double saved_B[SB], saved_beta = dab0[1];
            memcpy(saved_B, dB0, sizeof saved_B);
            memset(dB0, 0, sizeof dB0), dab0[1] = 0;
            memcpy(A, A0, sizeof A), memcpy(C, C0, sizeof C), memcpy(x, x0, sizeof x);
            memcpy(y, y0s, sizeof y);
            memcpy(dA, dA0, sizeof A), memcpy(dC, dC0, sizeof C), memcpy(dx, dx0, sizeof x);
            memcpy(dy, dy0, sizeof y);
            d = __enzyme_fwddiff((void *)f, ab0[0], dab0[0], A, dA, enzyme_const, B, enzyme_const,
                                 ab0[1], C, dC, x, dx, y, dy);
            snprintf(tag, sizeof tag, "l%dt%d.constB", l, t);
            check(tag, d, dC, dy);
            memcpy(dB0, saved_B, sizeof saved_B), dab0[1] = saved_beta;
        }
    return 0;
}
