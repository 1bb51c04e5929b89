// Diagnostic: cuBLAS's triangular solve (cublasDtrsm_v2) on active data. The rules of the
// triangular routines call BLAS's in-place trmm, which cuBLAS does not have (its trmm
// writes a third matrix): a located error naming the call, not a wrong derivative.
typedef void *cublasHandle_t;
int cublasDtrsm_v2(cublasHandle_t, int, int, int, int, int, int, const double *, const double *, int,
                   double *, int);

void __enzyme_autodiff(void *, ...);

double f(const double *A, double *B) {
    const double alpha = 1.0;
    cublasDtrsm_v2((cublasHandle_t)0, 0, 1, 0, 0, 2, 1, &alpha, A, 2, B, 2); /* DIAG-LINE */
    return B[0] + B[1];
}

int main(void) {
    double A[4] = {1, 2, 3, 4}, dA[4] = {0}, B[2] = {1, 1}, dB[2] = {0};
    __enzyme_autodiff((void *)f, A, dA, B, dB);
    return (int)dB[0];
}
