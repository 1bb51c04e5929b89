// Helper for cublas_host.c: host implementations of the cuBLAS entry points it calls, over
// CBLAS (column-major, pointer mode host), built by plain clang as a library would be.
#include <cblas.h>
#include "cublas_host.h"

static enum CBLAS_TRANSPOSE op(cublasOperation_t t) { return t == CUBLAS_OP_N ? CblasNoTrans : CblasTrans; }

cublasStatus_t cublasDgemm_v2(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n,
                              int k, const double *alpha, const double *A, int lda, const double *B,
                              int ldb, const double *beta, double *C, int ldc) {
    cblas_dgemm(CblasColMajor, op(ta), op(tb), m, n, k, *alpha, A, lda, B, ldb, *beta, C, ldc);
    return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasDgemv_v2(cublasHandle_t h, cublasOperation_t t, int m, int n, const double *alpha,
                              const double *A, int lda, const double *x, int incx, const double *beta,
                              double *y, int incy) {
    cblas_dgemv(CblasColMajor, op(t), m, n, *alpha, A, lda, x, incx, *beta, y, incy);
    return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasDger_v2(cublasHandle_t h, int m, int n, const double *alpha, const double *x,
                             int incx, const double *y, int incy, double *A, int lda) {
    cblas_dger(CblasColMajor, m, n, *alpha, x, incx, y, incy, A, lda);
    return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasDdot_v2(cublasHandle_t h, int n, const double *x, int incx, const double *y,
                             int incy, double *result) {
    *result = cblas_ddot(n, x, incx, y, incy);
    return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasDnrm2_v2(cublasHandle_t h, int n, const double *x, int incx, double *result) {
    *result = cblas_dnrm2(n, x, incx);
    return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasDaxpy_v2(cublasHandle_t h, int n, const double *alpha, const double *x, int incx,
                              double *y, int incy) {
    cblas_daxpy(n, *alpha, x, incx, y, incy);
    return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasDscal_v2(cublasHandle_t h, int n, const double *alpha, double *x, int incx) {
    cblas_dscal(n, *alpha, x, incx);
    return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasDcopy_v2(cublasHandle_t h, int n, const double *x, int incx, double *y, int incy) {
    cblas_dcopy(n, x, incx, y, incy);
    return CUBLAS_STATUS_SUCCESS;
}

