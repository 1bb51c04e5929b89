// The smallest reverse-mode program: d/dx x*x = 2x, at several points.
// tol: rel=1e-12 abs=1e-15
// grads: 4
#include <stdio.h>

extern int enzyme_out;
double __enzyme_autodiff(void *, ...);

double square(double x) { return x * x; }

int main(void) {
    const double xs[] = {3.0, -1.5, 0.0, 1e5};
    for (int i = 0; i < 4; i++) {
        double d = __enzyme_autodiff((void *)square, enzyme_out, xs[i]);
        printf("grad square@%g %.17g %.17g\n", xs[i], d, 2.0 * xs[i]);
    }
    return 0;
}
