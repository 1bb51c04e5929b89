// Inputs a BLAS call read and the program overwrites afterwards, in a loop: power
// iteration (x <- A x / |A x| by gemv, nrm2, copy and scal, x overwritten every step)
// and a matrix product fed back into its own factor (gemm into T, then T copied over A
// by a plain loop). The reverse pass needs every step's values, cached before they are
// overwritten. Both layouts. Against central differences.
// tol: rel=1e-6 abs=1e-8
// grads: 42
// flags: -lopenblas
#include <cblas.h>
#include "../blas_check.h"

void __enzyme_autodiff(void *, ...);

enum { N = 3, NN = N * N, STEPS = 4 };
static int lay;

double loss(double *A, double *B, double *x) {
    double y[N], T[NN];
    for (int s = 0; s < STEPS; s++) {
        cblas_dgemv(lay, s % 2 ? CblasTrans : CblasNoTrans, N, N, 1.0, A, N, x, 1, 0.0, y, 1);
        double r = cblas_dnrm2(N, y, 1);
        cblas_dcopy(N, y, 1, x, 1);
        cblas_dscal(N, 1.0 / r, x, 1);
        cblas_dgemm(lay, CblasNoTrans, s % 2 ? CblasTrans : CblasNoTrans, N, N, N, 0.5, A, N, B, N,
                    0.0, T, N);
        for (int i = 0; i < NN; i++) A[i] = T[i] + (i % (N + 1) == 0);
    }
    double out = 0;
    for (int i = 0; i < N; i++) out += (i + 1) * x[i];
    for (int i = 0; i < NN; i++) out += 0.1 * A[i];
    return out;
}

static double A0[NN], B0[NN], x0[N];
static double ev(void) {
    double A[NN], B[NN], x[N];
    memcpy(A, A0, sizeof A);
    memcpy(B, B0, sizeof B);
    memcpy(x, x0, sizeof x);
    return loss(A, B, x);
}

int main(void) {
    fill(A0, NN, 0.6);
    fill(B0, NN, 1.6);
    fill(x0, N, 2.6);
    for (int i = 0; i < N; i++) A0[i * (N + 1)] += 2;
    char tag[8];
    for (int l = 0; l < 2; l++) {
        lay = l ? CblasRowMajor : CblasColMajor;
        double A[NN], B[NN], x[N], dA[NN] = {0}, dB[NN] = {0}, dx[N] = {0};
        memcpy(A, A0, sizeof A);
        memcpy(B, B0, sizeof B);
        memcpy(x, x0, sizeof x);
        __enzyme_autodiff((void *)loss, A, dA, B, dB, x, dx);
        snprintf(tag, sizeof tag, "l%d", l);
        check_array(tag, "A", ev, A0, dA, NN);
        check_array(tag, "B", ev, B0, dB, NN);
        check_array(tag, "x", ev, x0, dx, N);
    }
    return 0;
}
