// sinh, cosh and tanh, including large |x| for tanh (derivative underflows to ~0).
// tol: rel=1e-12 abs=1e-14
// grads: 9
#include <math.h>
#include <stdio.h>

double __enzyme_autodiff(void *, ...);

double f_sinh(double x) { return sinh(x); }
double f_cosh(double x) { return cosh(x); }
double f_tanh(double x) { return tanh(x); }

int main(void) {
    const double xs[] = {0.5, -2.25, 20.0};
    for (int i = 0; i < 3; i++) {
        double x = xs[i];
        double t = tanh(x);
        printf("grad sinh@%g %.17g %.17g\n", x, __enzyme_autodiff((void *)f_sinh, x), cosh(x));
        printf("grad cosh@%g %.17g %.17g\n", x, __enzyme_autodiff((void *)f_cosh, x), sinh(x));
        double ct = cosh(x);
        printf("grad tanh@%g %.17g %.17g\n", x, __enzyme_autodiff((void *)f_tanh, x),
               i < 2 ? 1 - t * t : 1 / (ct * ct));
    }
    return 0;
}
