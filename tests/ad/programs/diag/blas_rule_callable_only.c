// Diagnostic: a BLAS routine enzc knows (its rules call it) but cannot differentiate
// itself (cblas_dsyr2, a symmetric rank-2 update) on active data: a located error naming
// it and the routines that have rules.
#include <cblas.h>

void __enzyme_autodiff(void *, ...);

double f(const double *x, double *A) {
    cblas_dsyr2(CblasColMajor, CblasUpper, 2, 1.0, x, 1, x, 1, A, 2); /* DIAG-LINE */
    return A[0] + A[2] + A[3];
}

int main(void) {
    double A[4] = {1, 2, 3, 4}, dA[4] = {0}, x[2] = {1, 1}, dx[2] = {0};
    __enzyme_autodiff((void *)f, x, dx, A, dA);
    return (int)dx[0];
}
