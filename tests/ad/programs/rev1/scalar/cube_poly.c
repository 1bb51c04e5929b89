// Cube and a Horner-form polynomial, with no marker (a double defaults to out).
// tol: rel=1e-12 abs=1e-13
// grads: 6
#include <stdio.h>

double __enzyme_autodiff(void *, ...);

double cube(double x) { return x * x * x; }

/* p(x) = 3x^4 - 2x^2 + 5x - 7 */
double poly(double x) { return (((3.0 * x + 0.0) * x - 2.0) * x + 5.0) * x - 7.0; }

int main(void) {
    const double xs[] = {2.0, -0.75, 0.3};
    for (int i = 0; i < 3; i++) {
        double x = xs[i];
        double dc = __enzyme_autodiff((void *)cube, x);
        printf("grad cube@%g %.17g %.17g\n", x, dc, 3.0 * x * x);
        double dp = __enzyme_autodiff((void *)poly, x);
        printf("grad poly@%g %.17g %.17g\n", x, dp, 12.0 * x * x * x - 4.0 * x + 5.0);
    }
    return 0;
}
