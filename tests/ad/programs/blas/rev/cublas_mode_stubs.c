// Helper for cublas_pointer_mode.c: cuBLAS's pointer mode and the CUDA runtime's cudaMemset
// on the host (no GPU; "device memory" is host memory here), counting the memsets so the
// program can tell which way the derivative cleared a result's adjoint.
#include <string.h>
#include "cublas_host.h"
#include "cublas_mode.h"

static cublasPointerMode_t mode = CUBLAS_POINTER_MODE_HOST;
int cuda_memsets;

cublasStatus_t cublasSetPointerMode_v2(cublasHandle_t h, cublasPointerMode_t m) {
    mode = m;
    return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasGetPointerMode_v2(cublasHandle_t h, cublasPointerMode_t *m) {
    *m = mode;
    return CUBLAS_STATUS_SUCCESS;
}
int cudaMemset(void *p, int value, size_t n) {
    cuda_memsets++;
    memset(p, value, n);
    return 0;
}
