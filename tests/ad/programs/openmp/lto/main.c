// A parallel loop in another translation unit, linked through enzcc's multi-file
// (LTO) path: the region is differentiated after the files are linked.
// tol: rel=1e-6 abs=1e-8
// grads: 6
// flags: -fopenmp
// sources: kernel.c
#include <stdlib.h>
#include "../fd.h"

extern void __enzyme_autodiff(void *, ...);
extern int enzyme_dup, enzyme_const;
double kernel_loss(const double *x, double *y, int n);

int main(void) {
    enum { N = 300 };
    double *x = malloc(N * sizeof *x), *y = calloc(N, sizeof *y);
    double *dx = calloc(N, sizeof *dx), *dy = calloc(N, sizeof *dy);
    for (int i = 0; i < N; i++)
        x[i] = 0.5 * cos(0.03 * i);
    __enzyme_autodiff((void *)kernel_loss, enzyme_dup, x, dx, enzyme_dup, y, dy, enzyme_const, N);
    for (int i = 0; i < N; i += 50)
        FD_CHECK("x", x, i, dx[i], kernel_loss(x, y, N));
    return 0;
}
