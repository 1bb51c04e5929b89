/* cuBLAS's pointer mode (cublas_api.h) and cudaMemset (cuda_runtime_api.h), as
 * cublas_mode_stubs.c implements them on the host. */
#include <stddef.h>
typedef enum { CUBLAS_POINTER_MODE_HOST = 0, CUBLAS_POINTER_MODE_DEVICE = 1 } cublasPointerMode_t;

cublasStatus_t cublasSetPointerMode_v2(cublasHandle_t, cublasPointerMode_t);
cublasStatus_t cublasGetPointerMode_v2(cublasHandle_t, cublasPointerMode_t *);
int cudaMemset(void *, int, size_t);
extern int cuda_memsets;
