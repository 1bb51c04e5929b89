// Diagnostic: a BLAS routine enzc has no derivative rule for (cblas_dtbmv, a banded
// triangular matrix-vector product) on active data: a located error naming it and the
// routines that do have rules, not a silently missing derivative.
#include <cblas.h>

void __enzyme_autodiff(void *, ...);

double f(const double *A, double *x) {
    cblas_dtbmv(CblasColMajor, CblasUpper, CblasNoTrans, CblasNonUnit, 2, 1, A, 2, x, 1); /* DIAG-LINE */
    return x[0] + x[1];
}

int main(void) {
    double A[4] = {1, 2, 3, 4}, dA[4] = {0}, x[2] = {1, 1}, dx[2] = {0};
    __enzyme_autodiff((void *)f, A, dA, x, dx);
    return (int)dx[0];
}
