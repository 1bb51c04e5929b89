// cuBLAS returns dot and nrm2 through a pointer that is host or device memory as the
// handle's pointer mode says. The reverse reads that result's adjoint in place (cuBLAS
// takes it as axpy's alpha by pointer) and then clears it: by cudaMemset in device mode,
// by a store in host mode, asking cublasGetPointerMode_v2 at run time. One result slot is
// reused across a loop, so an adjoint left uncleared would be added again to the earlier
// calls: against central differences in both modes, and the number of cudaMemset calls
// (one per dot and nrm2 differentiated in device mode, none in host mode).
// tol: rel=1e-6 abs=1e-8
// grads: 18
// flags: -lopenblas -lm
// objects: cublas_stubs.c cublas_mode_stubs.c
#include "../blas_check.h"
#include "cublas_host.h"
#include "cublas_mode.h"

void __enzyme_autodiff(void *, ...);

enum { N = 4, STEPS = 3 };
static cublasHandle_t handle = (cublasHandle_t)0x126;  /* never dereferenced by the stubs */

double loss(double *x, double *y) {
    double r, s = 0;
    for (int k = 0; k < STEPS; k++) {
        cublasDdot_v2(handle, N, x, 1, y, 1, &r);
        s += r * r * (k + 1);
        cublasDnrm2_v2(handle, N, x, 1, &r);
        s += sin(r);
        cublasDscal_v2(handle, N, &r, y, 1);
    }
    return s;
}

static double x0[N], y0s[N];
static double ev(void) {
    double x[N], y[N];
    memcpy(x, x0, sizeof x), memcpy(y, y0s, sizeof y);
    return loss(x, y);
}

int main(void) {
    fill(x0, N, 0.4), fill(y0s, N, 1.3);
    for (int m = 0; m < 2; m++) {
        const char *tag = m ? "device" : "host";
        cublasSetPointerMode_v2(handle, m ? CUBLAS_POINTER_MODE_DEVICE : CUBLAS_POINTER_MODE_HOST);
        double x[N], y[N], dx[N] = {0}, dy[N] = {0};
        memcpy(x, x0, sizeof x), memcpy(y, y0s, sizeof y);
        cuda_memsets = 0;
        __enzyme_autodiff((void *)loss, x, dx, y, dy);
        grad(tag, "cudaMemset_calls", 0, cuda_memsets, m ? 2 * STEPS : 0);
        cublasSetPointerMode_v2(handle, CUBLAS_POINTER_MODE_HOST);
        check_array(tag, "x", ev, x0, dx, N);
        check_array(tag, "y", ev, y0s, dy, N);
    }
    return 0;
}
