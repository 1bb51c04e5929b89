// Vector reverse mode through triangular solves: enzyme_width 3 with enzyme_dupv gives
// three rows of the Jacobian of X = S^-1 B (two trsm with the triangle of A, the solution
// overwritten by a scaling after them) and of y = L^-1 x (trsv) in one reverse pass: each
// lane runs the adjoint calls with its own shadows, all lanes read the copies of the
// solutions made after the calls, freed once. Both layouts. Against central differences.
// tol: rel=1e-6 abs=1e-8
// grads: 108
// flags: -lopenblas
#include <cblas.h>
#include "../blas_check.h"

void __enzyme_autodiff(void *, ...);
extern int enzyme_dupv;

enum { N = 3, NN = N * N, NB = N * 2, W = 3 };
static int lay;

void model(const double *A, double *B, double *x) {
    cblas_dtrsm(lay, CblasLeft, CblasLower, CblasNoTrans, CblasNonUnit, N, 2, 1.0, A, N, B, 2 + (lay == CblasColMajor));
    cblas_dtrsm(lay, CblasLeft, CblasLower, CblasTrans, CblasNonUnit, N, 2, 0.5, A, N, B, 2 + (lay == CblasColMajor));
    for (int i = 0; i < NB; i++) B[i] *= 1.0 + 0.1 * i;
    cblas_dtrsv(lay, CblasUpper, CblasTrans, CblasUnit, N, A, N, x, 1);
}

static double A0[NN], B0[NB], x0[N];
static int row;  /* which output ev() returns: B[row] + B[row + 3] + x[row] */
static double ev(void) {
    double B[NB], x[N];
    memcpy(B, B0, sizeof B), memcpy(x, x0, sizeof x);
    model(A0, B, x);
    return B[row] + B[row + 3] + x[row];
}

int main(void) {
    fill(A0, NN, 0.4), fill(B0, NB, 1.9), fill(x0, N, 2.2);
    for (int i = 0; i < NN; i++) A0[i] *= 0.4;
    for (int i = 0; i < N; i++) A0[i * (N + 1)] += 2.0 + 0.5 * i;
    char tag[16];
    for (int l = 0; l < 2; l++) {
        lay = l ? CblasRowMajor : CblasColMajor;
        double B[NB], x[N], dA[W][NN] = {{0}}, dB[W][NB] = {{0}}, dx[W][N] = {{0}};
        for (int k = 0; k < W; k++) dB[k][k] = dB[k][k + 3] = dx[k][k] = 1.0;
        memcpy(B, B0, sizeof B), memcpy(x, x0, sizeof x);
        __enzyme_autodiff((void *)model, enzyme_width, W, enzyme_dupv, sizeof dA[0], A0, dA[0],
                          enzyme_dupv, sizeof dB[0], B, dB[0], enzyme_dupv, sizeof dx[0], x, dx[0]);
        for (int k = 0; k < W; k++) {
            row = k;
            snprintf(tag, sizeof tag, "l%d.lane%d", l, k);
            check_array(tag, "A", ev, A0, dA[k], NN);
            check_array(tag, "B", ev, B0, dB[k], NB);
            check_array(tag, "x", ev, x0, dx[k], N);
        }
    }
    return 0;
}
