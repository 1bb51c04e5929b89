// erf and erfc: d erf(x)/dx = 2/sqrt(pi) exp(-x^2) = -d erfc(x)/dx.
// tol: rel=1e-12 abs=1e-14
// grads: 6
#include <math.h>
#include <stdio.h>

double __enzyme_autodiff(void *, ...);

double f_erf(double x) { return erf(x); }
double f_erfc(double x) { return erfc(x); }

int main(void) {
    const double xs[] = {0.4, -1.2, 2.5};
    for (int i = 0; i < 3; i++) {
        double x = xs[i];
        double g = 2.0 / sqrt(M_PI) * exp(-x * x);
        printf("grad erf@%g %.17g %.17g\n", x, __enzyme_autodiff((void *)f_erf, x), g);
        printf("grad erfc@%g %.17g %.17g\n", x, __enzyme_autodiff((void *)f_erfc, x), -g);
    }
    return 0;
}
