// Rules for sqrt, cbrt and hypot (both arguments), analytic references.
// tol: rel=1e-12 abs=1e-14
// grads: 8
#include <math.h>
#include <stdio.h>

extern int enzyme_out;
typedef struct { double dx, dy; } Pair;
double __enzyme_autodiff(void *, ...);
Pair __enzyme_autodiff_pair(void *, int, double, int, double);

double f_sqrt(double x) { return sqrt(x); }
double f_cbrt(double x) { return cbrt(x); }
double f_hypot(double x, double y) { return hypot(x, y); }

int main(void) {
    const double xs[] = {2.5, 0.04};
    for (int i = 0; i < 2; i++) {
        double x = xs[i];
        printf("grad sqrt@%g %.17g %.17g\n", x, __enzyme_autodiff((void *)f_sqrt, enzyme_out, x),
               0.5 / sqrt(x));
        printf("grad cbrt@%g %.17g %.17g\n", x, __enzyme_autodiff((void *)f_cbrt, enzyme_out, x),
               1.0 / (3.0 * cbrt(x) * cbrt(x)));
    }
    double cn = -8.0;
    printf("grad cbrt@-8 %.17g %.17g\n", __enzyme_autodiff((void *)f_cbrt, enzyme_out, cn),
           1.0 / 12.0);
    double x = 3.0, y = -4.0;
    Pair p = __enzyme_autodiff_pair((void *)f_hypot, enzyme_out, x, enzyme_out, y);
    printf("grad hypot.dx %.17g %.17g\n", p.dx, x / 5.0);
    printf("grad hypot.dy %.17g %.17g\n", p.dy, y / 5.0);
    double s = 7.29;
    printf("grad sqrt@7.29 %.17g %.17g\n", __enzyme_autodiff((void *)f_sqrt, enzyme_out, s),
           1.0 / 5.4);
    return 0;
}
