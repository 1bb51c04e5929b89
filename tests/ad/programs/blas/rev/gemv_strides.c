// cblas_dgemv in reverse mode: both layouts, both transposes, increments 1, 2 and
// negative ones (BLAS walks those vectors from the end), a leading dimension larger
// than the matrix, alpha and beta active. Against central differences.
// tol: rel=1e-6 abs=1e-8
// grads: 672
// flags: -lopenblas
#include <cblas.h>
#include "../blas_check.h"

void __enzyme_autodiff(void *, ...);
typedef struct { double alpha, beta; } Pair;

enum { M = 3, N = 4, SA = 20, SX = 10, SY = 10 };
static int lay, tr, lda, incx, incy;
static double W[SY];

double loss(double alpha, double *A, double *x, double beta, double *y) {
    cblas_dgemv(lay, tr, M, N, alpha, A, lda, x, incx, beta, y, incy);
    double s = 0;
    for (int i = 0; i < SY; i++) s += W[i] * y[i] * (1 + 0.1 * i);
    return s;
}

static double A0[SA], xs[SX], ys[SY], alpha0 = 0.9, beta0 = 1.7;
static double ev(void) {
    double y[SY];
    memcpy(y, ys, sizeof y);
    return loss(alpha0, A0, xs, beta0, y);
}

int main(void) {
    static const int incs[4][2] = {{1, 1}, {2, -1}, {-2, 3}, {-1, -2}};
    fill(A0, SA, 0.5);
    fill(xs, SX, 1.5);
    fill(ys, SY, 2.5);
    fill(W, SY, 3.5);
    char tag[32];
    for (int l = 0; l < 2; l++)
        for (int t = 0; t < 2; t++)
            for (int c = 0; c < 4; c++) {
                lay = l ? CblasRowMajor : CblasColMajor;
                tr = t ? CblasTrans : CblasNoTrans;
                lda = (l ? N : M) + 1;
                incx = incs[c][0];
                incy = incs[c][1];
                double A[SA], x[SX], y[SY], dA[SA] = {0}, dx[SX] = {0}, dy[SY] = {0};
                memcpy(A, A0, sizeof A);
                memcpy(x, xs, sizeof x);
                memcpy(y, ys, sizeof y);
                Pair (*grad_all)(void *, ...) = (Pair(*)(void *, ...))__enzyme_autodiff;
                Pair d = grad_all((void *)loss, alpha0, A, dA, x, dx, beta0, y, dy);
                snprintf(tag, sizeof tag, "l%dt%di%d", l, t, c);
                check_array(tag, "A", ev, A0, dA, SA);
                check_array(tag, "x", ev, xs, dx, SX);
                check_array(tag, "y", ev, ys, dy, SY);
                grad(tag, "alpha", 0, d.alpha, central(ev, &alpha0));
                grad(tag, "beta", 0, d.beta, central(ev, &beta0));
            }
    return 0;
}
