// A local array (alloca) holding active values: filled from the inputs, then reduced.
// tol: rel=1e-12 abs=1e-14
// grads: 4
#include <math.h>
#include <stdio.h>

extern int enzyme_dup;
double __enzyme_autodiff(void *, ...);

double stencil(const double *x) {
    double tmp[4];
    for (int i = 0; i < 4; i++) tmp[i] = x[i] * x[(i + 1) % 4];
    double s = 0;
    for (int i = 0; i < 4; i++) s += tmp[i] * tmp[3 - i] + exp(tmp[i]);
    return s;
}

int main(void) {
    double x[4] = {0.5, -1.0, 1.5, 0.25}, dx[4] = {0};
    __enzyme_autodiff((void *)stencil, enzyme_dup, x, dx);
    double t[4], dt[4];
    for (int i = 0; i < 4; i++) t[i] = x[i] * x[(i + 1) % 4];
    for (int i = 0; i < 4; i++) dt[i] = 2 * t[3 - i] + exp(t[i]); /* d s / d tmp_i */
    for (int k = 0; k < 4; k++) {
        /* x_k appears in tmp_k (times x_{k+1}) and tmp_{k-1} (times x_{k-1}) */
        double r = dt[k] * x[(k + 1) % 4] + dt[(k + 3) % 4] * x[(k + 3) % 4];
        printf("grad dx[%d] %.17g %.17g\n", k, dx[k], r);
    }
    return 0;
}
