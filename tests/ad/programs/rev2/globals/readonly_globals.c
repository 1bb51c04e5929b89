// Globals the differentiated code only reads are constants: a `const` coefficient
// table, a mutable global parameter never written inside, and a global int.
// tol: rel=1e-12 abs=1e-14
// grads: 4
#include <math.h>
#include <stdio.h>

double __enzyme_autodiff(void *, ...);

static const double coeffs[5] = {0.5, -1.0, 0.25, 2.0, -0.125};
double damping = 0.3; /* written by main only */
int degree = 4;

double series(double x) {
    double s = 0, p = 1;
    for (int i = 0; i <= degree; i++) {
        s += coeffs[i] * p;
        p *= x;
    }
    return s * exp(-damping * x);
}

int main(void) {
    const double xs[] = {0.7, -1.3};
    for (int t = 0; t < 2; t++) {
        for (int k = 0; k < 2; k++) {
            damping = k ? 0.9 : 0.3;
            double x = xs[t], s = 0, ds = 0, p = 1;
            for (int i = 0; i <= degree; i++) {
                s += coeffs[i] * p;
                if (i < degree) ds += (i + 1) * coeffs[i + 1] * p;
                p *= x;
            }
            double e = exp(-damping * x);
            printf("grad series@%g,damp%g %.17g %.17g\n", x, damping,
                   __enzyme_autodiff((void *)series, x), ds * e - damping * s * e);
        }
    }
    return 0;
}
