// Vector reverse mode through BLAS calls: enzyme_width, 3 with enzyme_dupv gives three
// rows of the Jacobian of y = r * A x (r = <A x, x>) in one reverse pass: each lane
// runs the adjoint BLAS calls of gemv, dot and scal with its own shadows, sharing the
// cache of x (overwritten after the calls), freed once. Both layouts, and a gemm whose
// output is one lane's seed apart. Against central differences.
// tol: rel=1e-6 abs=1e-8
// grads: 126
// flags: -lopenblas
#include <cblas.h>
#include "../blas_check.h"

void __enzyme_autodiff(void *, ...);
extern int enzyme_dupv;

enum { N = 3, NN = N * N, W = 3 };
static int lay;

void model(const double *A, double *x, double *y, const double *B, double *C) {
    cblas_dgemv(lay, CblasNoTrans, N, N, 1.0, A, N, x, 1, 0.0, y, 1);
    double r = cblas_ddot(N, y, 1, x, 1);
    cblas_dscal(N, r, y, 1);
    cblas_dgemm(lay, CblasNoTrans, CblasTrans, N, N, N, 0.5, A, N, B, N, 0.0, C, N);
    for (int i = 0; i < N; i++) x[i] = y[i] * 0.25;  /* overwrites an input of the calls */
}

static double A0[NN], B0[NN], x0[N];
static int row;  /* which output ev() returns: y[row] + C[row * (N + 1)] */
static double ev(void) {
    double x[N], y[N], C[NN];
    memcpy(x, x0, sizeof x);
    model(A0, x, y, B0, C);
    return y[row] + C[row * (N + 1)];
}

int main(void) {
    fill(A0, NN, 0.4);
    fill(B0, NN, 1.9);
    fill(x0, N, 2.2);
    char tag[16];
    for (int l = 0; l < 2; l++) {
        lay = l ? CblasRowMajor : CblasColMajor;
        double x[N], y[N], C[NN];
        double dA[W][NN] = {{0}}, dB[W][NN] = {{0}}, dx[W][N] = {{0}}, dy[W][N] = {{0}}, dC[W][NN] = {{0}};
        for (int k = 0; k < W; k++) {
            dy[k][k] = 1.0;
            dC[k][k * (N + 1)] = 1.0;
        }
        memcpy(x, x0, sizeof x);
        __enzyme_autodiff((void *)model, enzyme_width, W, enzyme_dupv, sizeof dA[0], A0, dA[0],
                          enzyme_dupv, sizeof dx[0], x, dx[0], enzyme_dupv, sizeof dy[0], y, dy[0],
                          enzyme_dupv, sizeof dB[0], B0, dB[0], enzyme_dupv, sizeof dC[0], C, dC[0]);
        for (int k = 0; k < W; k++) {
            row = k;
            snprintf(tag, sizeof tag, "l%d.lane%d", l, k);
            check_array(tag, "A", ev, A0, dA[k], NN);
            check_array(tag, "B", ev, B0, dB[k], NN);
            check_array(tag, "x", ev, x0, dx[k], N);
        }
    }
    return 0;
}
