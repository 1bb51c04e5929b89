// A small neural network: layers are noinline functions calling cblas_dgemv (weights
// W, row-major) and cblas_daxpy (bias), then tanh in place; the same layer function is
// called in a loop with different weights, the activations overwritten each step. The
// reverse pass goes through the layers' own split derivatives, their BLAS inputs cached
// per call. Against central differences of the loss.
// tol: rel=1e-6 abs=1e-9
// grads: 39
// flags: -lopenblas
#include <cblas.h>
#include "../blas_check.h"

void __enzyme_autodiff(void *, ...);

enum { D = 3, LAYERS = 3, SW = LAYERS * D * D, SB = LAYERS * D };

__attribute__((noinline)) void layer(const double *W, const double *b, double *h, double *tmp) {
    cblas_dgemv(CblasRowMajor, CblasNoTrans, D, D, 1.0, W, D, h, 1, 0.0, tmp, 1);
    cblas_daxpy(D, 1.0, b, 1, tmp, 1);
    for (int i = 0; i < D; i++) h[i] = tanh(tmp[i]);
}

double loss(const double *W, const double *b, double *h) {
    double tmp[D];
    for (int l = 0; l < LAYERS; l++) layer(W + l * D * D, b + l * D, h, tmp);
    return h[0] - 2 * h[1] + h[2] * h[2];
}

static double W0[SW], b0[SB], h0[D];
static double ev(void) {
    double h[D];
    memcpy(h, h0, sizeof h);
    return loss(W0, b0, h);
}

int main(void) {
    fill(W0, SW, 0.7), fill(b0, SB, 1.7), fill(h0, D, 2.7);
    double h[D], dW[SW] = {0}, db[SB] = {0}, dh[D] = {0};
    memcpy(h, h0, sizeof h);
    __enzyme_autodiff((void *)loss, W0, dW, b0, db, h, dh);
    check_array("mlp", "W", ev, W0, dW, SW);
    check_array("mlp", "b", ev, b0, db, SB);
    check_array("mlp", "h", ev, h0, dh, D);
    return 0;
}
