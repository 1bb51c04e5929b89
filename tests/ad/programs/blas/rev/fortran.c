// The Fortran BLAS interface (dgemm_, dgemv_, dsymv_, dger_, dsyrk_, ddot_, dnrm2_,
// dasum_, daxpy_, dscal_, dcopy_: everything by reference, flags as letters of either
// case, column-major) in reverse mode, every transpose pair, leading dimensions larger
// than the matrices. Against central differences.
// tol: rel=1e-6 abs=1e-8
// grads: 260
// flags: -lopenblas
#include "../blas_check.h"

void __enzyme_autodiff(void *, ...);
void dgemm_(const char *, const char *, const int *, const int *, const int *, const double *,
            const double *, const int *, const double *, const int *, const double *, double *,
            const int *);
void dgemv_(const char *, const int *, const int *, const double *, const double *, const int *,
            const double *, const int *, const double *, double *, const int *);
void dsymv_(const char *, const int *, const double *, const double *, const int *,
            const double *, const int *, const double *, double *, const int *);
void dger_(const int *, const int *, const double *, const double *, const int *, const double *,
           const int *, double *, const int *);
void dsyrk_(const char *, const char *, const int *, const int *, const double *, const double *,
            const int *, const double *, double *, const int *);
double ddot_(const int *, const double *, const int *, const double *, const int *);
double dnrm2_(const int *, const double *, const int *);
double dasum_(const int *, const double *, const int *);
void daxpy_(const int *, const double *, const double *, const int *, double *, const int *);
void dscal_(const int *, const double *, double *, const int *);
void dcopy_(const int *, const double *, const int *, double *, const int *);

enum { SA = 16, SB = 16, SC = 16, SV = 8 };
static const int m = 3, n = 2, k = 3, one = 1, two = 2, lda = 4, ldb = 4, ldc = 4;
static char ta, tb;

double loss(double alpha, double *A, double *B, double *C, double *x, double *y) {
    const double half = 0.5, beta = -0.4;
    dgemm_(&ta, &tb, &m, &n, &k, &alpha, A, &lda, B, &ldb, &half, C, &ldc);
    dgemv_(&tb, &m, &n, &alpha, C, &ldc, x, &one, &beta, y, &two);
    dsymv_("u", &n, &half, B, &ldb, y, &one, &alpha, x, &two);
    dger_(&m, &n, &alpha, y, &two, x, &one, A, &lda);
    dsyrk_("L", &ta, &m, &k, &half, A, &lda, &alpha, C, &ldc);
    double s = ddot_(&m, x, &two, y, &one) + dnrm2_(&m, y, &two) + dasum_(&m, x, &one);
    daxpy_(&m, &alpha, x, &one, y, &one);
    dscal_(&m, &beta, y, &two);
    dcopy_(&m, y, &one, x, &two);
    for (int i = 0; i < SC; i++) s += C[i] * (1 + 0.25 * i);
    for (int i = 0; i < SV; i++) s += (0.5 + 0.1 * i) * y[i] * y[i] + x[i] * x[i];
    for (int i = 0; i < SA; i++) s += 0.2 * A[i] * A[i];
    return s;
}

static double A0[SA], B0[SB], C0[SC], x0[SV], y0s[SV], alpha0 = 0.9;
static double ev(void) {
    double A[SA], B[SB], C[SC], x[SV], y[SV];
    memcpy(A, A0, sizeof A);
    memcpy(B, B0, sizeof B);
    memcpy(C, C0, sizeof C);
    memcpy(x, x0, sizeof x);
    memcpy(y, y0s, sizeof y);
    return loss(alpha0, A, B, C, x, y);
}

int main(void) {
    static const char flags[4][2] = {{'N', 'n'}, {'t', 'N'}, {'n', 'T'}, {'T', 't'}};
    fill(A0, SA, 0.1);
    fill(B0, SB, 1.1);
    fill(C0, SC, 2.1);
    fill(x0, SV, 3.1);
    fill(y0s, SV, 4.1);
    char tag[32];
    for (int f = 0; f < 4; f++) {
        ta = flags[f][0];
        tb = flags[f][1];
        double A[SA], B[SB], C[SC], x[SV], y[SV];
        double dA[SA] = {0}, dB[SB] = {0}, dC[SC] = {0}, dx[SV] = {0}, dy[SV] = {0};
        memcpy(A, A0, sizeof A);
        memcpy(B, B0, sizeof B);
        memcpy(C, C0, sizeof C);
        memcpy(x, x0, sizeof x);
        memcpy(y, y0s, sizeof y);
        double (*g)(void *, ...) = (double (*)(void *, ...))__enzyme_autodiff;
        double da = g((void *)loss, alpha0, A, dA, B, dB, C, dC, x, dx, y, dy);
        snprintf(tag, sizeof tag, "%c%c", ta, tb);
        check_array(tag, "A", ev, A0, dA, SA);
        check_array(tag, "B", ev, B0, dB, SB);
        check_array(tag, "C", ev, C0, dC, SC);
        check_array(tag, "x", ev, x0, dx, SV);
        check_array(tag, "y", ev, y0s, dy, SV);
        grad(tag, "alpha", 0, da, central(ev, &alpha0));
    }
    return 0;
}
