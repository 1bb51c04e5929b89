// Forward split mode with the tape in the caller's buffer (enzyme_allocated, bytes,
// enzyme_tape, buffer in both calls, each in a function of its own), sized by
// __enzyme_augmentsize (the entry points declared by enzyme/enzyme.h): f updates x
// in place. Against analytic derivatives: x0' = x0 + x1^2, x1' = -x1, so
// dx0' = dx0 + 2 x1 dx1, dx1' = -dx1; x must hold the update applied once.
// tol: rel=1e-12 abs=1e-14
// grads: 5
#include <enzyme/enzyme.h>
#include <stddef.h>
#include <stdio.h>

#define TAPE_BYTES 16

void f(double *x) {
    x[0] += x[1] * x[1];
    x[1] = -x[1];
}

void f_aug(double *x, double *dx, void *tape) {
    __enzyme_augmentfwd((void *)f, enzyme_dup, x, dx, enzyme_allocated, TAPE_BYTES, enzyme_tape, tape);
}

void f_tangent(double *x, double *dx, void *tape) {
    __enzyme_fwdsplit((void *)f, enzyme_dup, x, dx, enzyme_allocated, TAPE_BYTES, enzyme_tape, tape);
}

int main(void) {
    const double x0 = 1.2, x1 = 3.4, v0 = 5.6, v1 = 7.8;
    double x[2] = {x0, x1}, dx[2] = {v0, v1};
    _Alignas(8) char tape[TAPE_BYTES];
    size_t need = __enzyme_augmentsize((void *)f, enzyme_dup);
    printf("grad tape_fits %d %d\n", need <= TAPE_BYTES, 1);
    f_aug(x, dx, tape);
    x[1] = 0; /* the tangent reads x1 from the tape */
    f_tangent(x, dx, tape);
    printf("grad x0_once %.17g %.17g\n", x[0], x0 + x1 * x1);
    printf("grad x1_caller %.17g %.17g\n", x[1], 0.0);
    printf("grad dx0 %.17g %.17g\n", dx[0], v0 + 2 * x1 * v1);
    printf("grad dx1 %.17g %.17g\n", dx[1], -v1);
    return 0;
}
