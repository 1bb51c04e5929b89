// One cuBLAS call (cublasDgemv_v2, both transposes) whose adjoint needs routines the
// program never calls: enzcc declares cublasDger_v2, cublasDdot_v2 and cublasDscal_v2 in
// cuBLAS's v2 API (alpha by pointer, the dot's result through one); the host stubs of
// cublas_stubs.c resolve them. Against central differences.
// tol: rel=1e-6 abs=1e-8
// grads: 24
// flags: -lopenblas -lm
// objects: cublas_stubs.c
#include "../blas_check.h"
#include "cublas_host.h"

void __enzyme_autodiff(void *, ...);

static cublasOperation_t trans;

double f(double alpha, double *A, double *x, double *y) {
    const double beta = 0.5;
    cublasDgemv_v2((cublasHandle_t)0, trans, 3, 2, &alpha, A, 3, x, 1, &beta, y, 1);
    return y[0] * y[1] + (trans == CUBLAS_OP_N ? y[2] * y[2] : 0);
}

static double A0[6], x0[3], y0s[3], alpha0 = 0.7;
static double ev(void) {
    double A[6], x[3], y[3];
    memcpy(A, A0, sizeof A), memcpy(x, x0, sizeof x), memcpy(y, y0s, sizeof y);
    return f(alpha0, A, x, y);
}

int main(void) {
    fill(A0, 6, 0.1), fill(x0, 3, 1.1), fill(y0s, 3, 2.1);
    for (int t = 0; t < 2; t++) {
        trans = t ? CUBLAS_OP_T : CUBLAS_OP_N;
        double A[6], x[3], y[3], dA[6] = {0}, dx[3] = {0}, dy[3] = {0};
        memcpy(A, A0, sizeof A), memcpy(x, x0, sizeof x), memcpy(y, y0s, sizeof y);
        double (*g)(void *, ...) = (double (*)(void *, ...))__enzyme_autodiff;
        double da = g((void *)f, alpha0, A, dA, x, dx, y, dy);
        const char *tag = t ? "T" : "N";
        grad(tag, "alpha", 0, da, central(ev, &alpha0));
        check_array(tag, "A", ev, A0, dA, 6);
        check_array(tag, "x", ev, x0, dx, t ? 3 : 2);
        check_array(tag, "y", ev, y0s, dy, t ? 2 : 3);
    }
    return 0;
}
