// cblas_dsymv, cblas_dger and cblas_dsyrk in reverse mode: both layouts, both
// triangles, both transposes (syrk), increments including negative ones, leading
// dimensions larger than the matrices, alpha and beta active. The routines read one
// triangle of a symmetric matrix: the other triangle's adjoint must stay zero.
// Against central differences over the whole storage.
// tol: rel=1e-6 abs=1e-8
// grads: 600
// flags: -lopenblas
#include <cblas.h>
#include "../blas_check.h"

void __enzyme_autodiff(void *, ...);
typedef struct { double alpha, beta; } Pair;

enum { N = 3, K = 2, SA = 16, SV = 8, SC = 16 };
static int lay, up, tr, lda, ldc, ix, iy;
static double W[SC];

/* symv then ger into the same matrix it read, then syrk of that matrix */
double loss(double alpha, double *A, double *x, double beta, double *y, double *C) {
    cblas_dsymv(lay, up, N, alpha, A, lda, x, ix, beta, y, iy);
    cblas_dger(lay, N, N, alpha, y, iy, x, ix, A, lda);
    cblas_dsyrk(lay, up, tr, N, K, alpha, A, lda, beta, C, ldc);
    double s = 0;
    for (int i = 0; i < SC; i++) s += W[i] * C[i];
    for (int i = 0; i < SV; i++) s += W[i] * y[i] * y[i];
    return s;
}

static double A0[SA], xs[SV], ys[SV], C0[SC], alpha0 = 0.7, beta0 = -1.2;
static double ev(void) {
    double A[SA], y[SV], C[SC];
    memcpy(A, A0, sizeof A);
    memcpy(y, ys, sizeof y);
    memcpy(C, C0, sizeof C);
    return loss(alpha0, A, xs, beta0, y, C);
}

int main(void) {
    static const int incs[3][2] = {{1, 1}, {2, -1}, {-1, 2}};
    fill(A0, SA, 0.2);
    fill(xs, SV, 1.2);
    fill(ys, SV, 2.2);
    fill(C0, SC, 3.2);
    fill(W, SC, 4.2);
    char tag[32];
    for (int l = 0; l < 2; l++)
        for (int u = 0; u < 2; u++)
            for (int c = 0; c < 3; c++) {
                lay = l ? CblasRowMajor : CblasColMajor;
                up = u ? CblasLower : CblasUpper;
                tr = (u + c) % 2 ? CblasTrans : CblasNoTrans;
                lda = N + 1;
                ldc = N + (c % 2);
                ix = incs[c][0];
                iy = incs[c][1];
                double A[SA], x[SV], y[SV], C[SC], dA[SA] = {0}, dx[SV] = {0}, dy[SV] = {0},
                       dC[SC] = {0};
                memcpy(A, A0, sizeof A);
                memcpy(x, xs, sizeof x);
                memcpy(y, ys, sizeof y);
                memcpy(C, C0, sizeof C);
                Pair (*g)(void *, ...) = (Pair(*)(void *, ...))__enzyme_autodiff;
                Pair d = g((void *)loss, alpha0, A, dA, x, dx, beta0, y, dy, C, dC);
                snprintf(tag, sizeof tag, "l%du%dc%d", l, u, c);
                check_array(tag, "A", ev, A0, dA, SA);
                check_array(tag, "x", ev, xs, dx, SV);
                check_array(tag, "y", ev, ys, dy, SV);
                check_array(tag, "C", ev, C0, dC, SC);
                grad(tag, "alpha", 0, d.alpha, central(ev, &alpha0));
                grad(tag, "beta", 0, d.beta, central(ev, &beta0));
            }
    return 0;
}
