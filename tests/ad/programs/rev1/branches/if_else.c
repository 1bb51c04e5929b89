// Piecewise function with an if/else; each piece uses a different active operation.
// tol: rel=1e-12 abs=1e-14
// grads: 6
#include <math.h>
#include <stdio.h>

extern int enzyme_out, enzyme_const;
double __enzyme_autodiff(void *, ...);

double piecewise(double x, double k) {
    double y;
    if (x < k) {
        y = x * x * k;
    } else {
        y = sin(x) + k * log(x);
    }
    return y * 2.0;
}

int main(void) {
    const double xs[] = {0.5, 1.0, 2.0};
    for (int i = 0; i < 3; i++) {
        double x = xs[i], k = 1.2;
        double d = __enzyme_autodiff((void *)piecewise, enzyme_out, x, enzyme_const, k);
        double ref = x < k ? 4 * x * k : 2 * (cos(x) + k / x);
        printf("grad dx@%g %.17g %.17g\n", x, d, ref);
        double dk = __enzyme_autodiff((void *)piecewise, enzyme_const, x, enzyme_out, k);
        printf("grad dk@%g %.17g %.17g\n", x, dk, x < k ? 2 * x * x : 2 * log(x));
    }
    return 0;
}
