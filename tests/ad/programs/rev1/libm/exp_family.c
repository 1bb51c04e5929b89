// exp, exp2 and expm1 (expm1 near 0, where exp(x)-1 would lose digits).
// tol: rel=1e-12 abs=1e-14
// grads: 6
#include <math.h>
#include <stdio.h>

double __enzyme_autodiff(void *, ...);

double f_exp(double x) { return exp(x); }
double f_exp2(double x) { return exp2(x); }
double f_expm1(double x) { return expm1(x); }

int main(void) {
    const double xs[] = {0.9, -3e-9};
    for (int i = 0; i < 2; i++) {
        double x = xs[i];
        printf("grad exp@%g %.17g %.17g\n", x, __enzyme_autodiff((void *)f_exp, x), exp(x));
        printf("grad exp2@%g %.17g %.17g\n", x, __enzyme_autodiff((void *)f_exp2, x),
               exp2(x) * M_LN2);
        printf("grad expm1@%g %.17g %.17g\n", x, __enzyme_autodiff((void *)f_expm1, x), exp(x));
    }
    return 0;
}
