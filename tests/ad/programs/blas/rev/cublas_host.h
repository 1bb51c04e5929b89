/* The part of cuBLAS's v2 API that cublas_host.c calls (types and entry points as in
 * cublas_api.h); cublas_stubs.c implements it on the host. */
typedef struct cublasContext *cublasHandle_t;
typedef enum { CUBLAS_STATUS_SUCCESS = 0 } cublasStatus_t;
typedef enum { CUBLAS_OP_N = 0, CUBLAS_OP_T = 1, CUBLAS_OP_C = 2 } cublasOperation_t;

cublasStatus_t cublasDgemm_v2(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int,
                              const double *, const double *, int, const double *, int, const double *,
                              double *, int);
cublasStatus_t cublasDgemv_v2(cublasHandle_t, cublasOperation_t, int, int, const double *, const double *,
                              int, const double *, int, const double *, double *, int);
cublasStatus_t cublasDger_v2(cublasHandle_t, int, int, const double *, const double *, int, const double *,
                             int, double *, int);
cublasStatus_t cublasDdot_v2(cublasHandle_t, int, const double *, int, const double *, int, double *);
cublasStatus_t cublasDnrm2_v2(cublasHandle_t, int, const double *, int, double *);
cublasStatus_t cublasDaxpy_v2(cublasHandle_t, int, const double *, const double *, int, double *, int);
cublasStatus_t cublasDscal_v2(cublasHandle_t, int, const double *, double *, int);
cublasStatus_t cublasDcopy_v2(cublasHandle_t, int, const double *, int, double *, int);

