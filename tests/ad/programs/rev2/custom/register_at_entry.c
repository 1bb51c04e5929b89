// The function handed to __enzyme_autodiff is itself the one with a registered
// gradient: the registration applies at the entry point as at calls (as in Enzyme),
// never the body's own derivative. The custom gradients are deliberately 3x the true
// ones (references below), so a differentiated body gives a different value.
// tol: rel=1e-12 abs=1e-14
// grads: 6
#include <stdio.h>
#include <stdlib.h>

double __enzyme_autodiff(void *, ...);
extern int enzyme_dup, enzyme_const;

double sq(double x) { return x * x; }
static double aug_sq(double x) { return sq(x); }
static double rev_sq(double x, double d_ret) { return 3.0 * 2.0 * x * d_ret; }
static void *__enzyme_register_gradient_sq[3] = {(void *)sq, (void *)aug_sq, (void *)rev_sq};

/* out = x[0] * x[1]; the tape keeps the inputs' product partners. */
void mul_into(const double *x, double *out) { *out = x[0] * x[1]; }
static void *aug_mul_into(const double *x, const double *dx, double *out, double *dout) {
    (void)dx, (void)dout;
    double *tape = malloc(2 * sizeof *tape);
    tape[0] = x[1], tape[1] = x[0];
    *out = x[0] * x[1];
    return tape;
}
static void rev_mul_into(const double *x, double *dx, double *out, double *dout, void *tape) {
    (void)x, (void)out;
    double *t = tape;
    dx[0] += 3.0 * t[0] * *dout;
    dx[1] += 3.0 * t[1] * *dout;
    *dout = 0;
    free(tape);
}
void *__enzyme_register_gradient_mul_into[3] = {(void *)mul_into, (void *)aug_mul_into, (void *)rev_mul_into};

int main(void) {
    const double xs[] = {0.5, -1.25};
    for (int i = 0; i < 2; i++)
        printf("grad sq@%g %.17g %.17g\n", xs[i], __enzyme_autodiff((void *)sq, xs[i]), 3.0 * 2.0 * xs[i]);
    double x[2] = {0.75, -2.0}, dx[2] = {0, 0}, out = 0, dout = 1.0;
    __enzyme_autodiff((void *)mul_into, enzyme_dup, x, dx, enzyme_dup, &out, &dout);
    printf("grad mul_into/dx0 %.17g %.17g\n", dx[0], 3.0 * x[1]);
    printf("grad mul_into/dx1 %.17g %.17g\n", dx[1], 3.0 * x[0]);
    printf("grad mul_into/out %.17g %.17g\n", out, x[0] * x[1]);
    printf("grad mul_into/dout %.17g %.17g\n", dout, 0.0);
    return 0;
}
