// Forward mode through CBLAS with enzyme_width 2: two directions in one call through
// gemm, gemv, syrk, dot and nrm2, both layouts. Each lane's tangent (of the result and
// of every entry of C) against central differences along its own direction.
// tol: rel=1e-6 abs=1e-8
// grads: 40
// flags: -lopenblas
#include <cblas.h>
#include "../blas_check.h"

typedef struct { double d[2]; } Two;
Two __enzyme_fwddiff(void *, ...);

enum { M = 3, N = 3, K = 2, SA = 6, SB = 6, SC = 9, SV = 3 };
static int lay;

double f(double *A, double *B, double *C, double *x) {
    int lda = lay == CblasRowMajor ? K : M, ldb = lay == CblasRowMajor ? N : K;
    cblas_dgemm(lay, CblasNoTrans, CblasNoTrans, M, N, K, 1.2, A, lda, B, ldb, -0.5, C, N);
    cblas_dsyrk(lay, CblasUpper, CblasNoTrans, M, K, 0.7, A, lda, 1.0, C, N);
    double y[SV];
    cblas_dgemv(lay, CblasTrans, M, N, 1.0, C, N, x, 1, 0.0, y, 1);
    return cblas_ddot(SV, y, 1, x, 1) + cblas_dnrm2(SV, y, 1);
}

static double A0[SA], B0[SB], C0[SC], x0[SV], dirs[2][SA + SB + SC + SV];
static double Cout[SC];

static double at(int lane, double t) {
    double A[SA], B[SB], x[SV];
    const double *v = dirs[lane];
    for (int i = 0; i < SA; i++) A[i] = A0[i] + t * v[i];
    for (int i = 0; i < SB; i++) B[i] = B0[i] + t * v[SA + i];
    for (int i = 0; i < SC; i++) Cout[i] = C0[i] + t * v[SA + SB + i];
    for (int i = 0; i < SV; i++) x[i] = x0[i] + t * v[SA + SB + SC + i];
    return f(A, B, Cout, x);
}

int main(void) {
    fill(A0, SA, 0.4), fill(B0, SB, 1.4), fill(C0, SC, 2.4), fill(x0, SV, 3.4);
    fill(dirs[0], SA + SB + SC + SV, 5.4), fill(dirs[1], SA + SB + SC + SV, 6.4);
    char tag[16];
    for (int l = 0; l < 2; l++) {
        lay = l ? CblasRowMajor : CblasColMajor;
        double A[SA], B[SB], C[SC], x[SV], t[2][SA + SB + SC + SV];
        memcpy(A, A0, sizeof A), memcpy(B, B0, sizeof B), memcpy(C, C0, sizeof C), memcpy(x, x0, sizeof x);
        memcpy(t, dirs, sizeof t);
        double *tA[2] = {t[0], t[1]}, *tB[2] = {t[0] + SA, t[1] + SA};
        double *tC[2] = {t[0] + SA + SB, t[1] + SA + SB}, *tx[2] = {t[0] + SA + SB + SC, t[1] + SA + SB + SC};
        Two d = __enzyme_fwddiff((void *)f, enzyme_width, 2, enzyme_dup, A, tA[0], tA[1], enzyme_dup, B, tB[0],
                                 tB[1], enzyme_dup, C, tC[0], tC[1], enzyme_dup, x, tx[0], tx[1]);
        for (int k = 0; k < 2; k++) {
            double h = 1e-6, Cu[SC], up = at(k, h);
            memcpy(Cu, Cout, sizeof Cu);
            double down = at(k, -h);
            snprintf(tag, sizeof tag, "l%d.lane%d", l, k);
            grad(tag, "f", 0, d.d[k], (up - down) / (2 * h));
            for (int i = 0; i < SC; i++) grad(tag, "C", i, tC[k][i], (Cu[i] - Cout[i]) / (2 * h));
        }
    }
    return 0;
}
