// Explicit markers override defaults: a double marked const gets no derivative, an
// int marked const, and the shadow accumulates (+=) into a non-zero dx.
// tol: rel=1e-12 abs=1e-14
// grads: 4
#include <math.h>
#include <stdio.h>

extern int enzyme_out, enzyme_const, enzyme_dup;
double __enzyme_autodiff(void *, ...);

double f(double a, double x, int n, double *v) { return a * exp(x) + n * v[0] * v[1] * a; }

int main(void) {
    double a = 0.5, x = 1.2;
    double v[2] = {2.0, -3.0}, dv[2] = {10.0, 20.0}; /* shadow starts non-zero */
    double da = __enzyme_autodiff((void *)f, enzyme_out, a, enzyme_const, x, enzyme_const, 3,
                                  enzyme_dup, v, dv);
    printf("grad da %.17g %.17g\n", da, exp(x) + 3 * v[0] * v[1]);
    printf("grad dv0 %.17g %.17g\n", dv[0], 10.0 + 3 * v[1] * a);
    printf("grad dv1 %.17g %.17g\n", dv[1], 20.0 + 3 * v[0] * a);
    double dx = __enzyme_autodiff((void *)f, enzyme_const, a, enzyme_out, x, enzyme_const, 3,
                                  enzyme_const, v);
    printf("grad dx %.17g %.17g\n", dx, a * exp(x));
    return 0;
}
