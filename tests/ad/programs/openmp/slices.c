// Each iteration writes its own slice of 4 outputs from its own slice of inputs,
// scaled by a firstprivate double captured from the caller: the float capture is
// an active argument of the outlined region and its adjoint comes back from
// every thread.
// tol: rel=1e-6 abs=1e-8
// grads: 9
// flags: -fopenmp
#include <stdlib.h>
#include "fd.h"

extern double __enzyme_autodiff(void *, ...);
extern int enzyme_dup, enzyme_const, enzyme_out;

__attribute__((noinline)) double blocks(double *out, const double *in, double scale, int nblocks) {
#pragma omp parallel for firstprivate(scale) schedule(static)
    for (int b = 0; b < nblocks; b++) {
        double t[4];
        for (int j = 0; j < 4; j++)
            t[j] = in[4 * b + j] * scale;
        for (int j = 0; j < 4; j++)
            out[4 * b + j] = t[j] * t[(j + 1) % 4] + sin(t[j]);
    }
    double s = 0;
    for (int i = 0; i < 4 * nblocks; i++)
        s += out[i] * out[i];
    return s;
}

static double blocks_of(double *out, double *in, double *scale, int nb) { return blocks(out, in, *scale, nb); }

int main(void) {
    enum { NB = 50 };
    double *in = malloc(4 * NB * sizeof *in), *out = calloc(4 * NB, sizeof *out);
    double *din = calloc(4 * NB, sizeof *din), *dout = calloc(4 * NB, sizeof *dout);
    double scale = 0.9;
    for (int i = 0; i < 4 * NB; i++)
        in[i] = 0.1 + 0.01 * i;
    double dscale = __enzyme_autodiff((void *)blocks, enzyme_dup, out, dout, enzyme_dup, in, din, enzyme_out, scale,
                                      enzyme_const, NB);
    for (int i = 0; i < 4 * NB; i += 25)
        FD_CHECK("in", in, i, din[i], blocks_of(out, in, &scale, NB));
    FD_CHECK("scale", &scale, 0, dscale, blocks_of(out, in, &scale, NB));
    return 0;
}
