// Forward over reverse: the Hessian-vector product H v of f(x) = sum_i x_i^2 x_{i+1}
// + sin(x_0 x_2), as the directional derivative (__enzyme_fwddiff) of a function
// computing the gradient with __enzyme_autodiff. Against the analytic Hessian.
// tol: rel=1e-12 abs=1e-14
// grads: 3
#include <math.h>
#include <stdio.h>

void __enzyme_autodiff(void *, ...);
void __enzyme_fwddiff(void *, ...);
extern int enzyme_dup, enzyme_const, enzyme_dupnoneed;

double f(const double *x) {
    double s = 0;
    for (int i = 0; i < 2; i++) s += x[i] * x[i] * x[i + 1];
    return s + sin(x[0] * x[2]);
}

void grad(const double *x, double *g) {
    for (int i = 0; i < 3; i++) g[i] = 0;
    __enzyme_autodiff((void *)f, enzyme_dup, x, g);
}

int main(void) {
    double x[3] = {0.5, -1.0, 0.8}, v[3] = {1.0, 2.0, -0.5}, g[3], hv[3] = {0, 0, 0};
    __enzyme_fwddiff((void *)grad, enzyme_dup, x, v, enzyme_dupnoneed, g, hv);
    double s = sin(x[0] * x[2]), c = cos(x[0] * x[2]);
    double H[3][3] = {
        {2 * x[1] - s * x[2] * x[2], 2 * x[0], c - s * x[0] * x[2]},
        {2 * x[0], 2 * x[2], 2 * x[1]},
        {c - s * x[0] * x[2], 2 * x[1], -s * x[0] * x[0]},
    };
    for (int i = 0; i < 3; i++) {
        double e = 0;
        for (int j = 0; j < 3; j++) e += H[i][j] * v[j];
        printf("grad Hv[%d] %.17g %.17g\n", i, hv[i], e);
    }
    return 0;
}
