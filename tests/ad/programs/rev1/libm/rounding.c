// floor, ceil, trunc, round and rint have derivative 0: x * floor(x) has derivative
// floor(x), so a rule that passed the adjoint through would be caught.
// tol: rel=1e-12 abs=1e-14
// grads: 10
#include <math.h>
#include <stdio.h>

double __enzyme_autodiff(void *, ...);

double f_floor(double x) { return x * floor(x); }
double f_ceil(double x) { return x * ceil(x); }
double f_trunc(double x) { return x * trunc(x); }
double f_round(double x) { return x * round(x); }
double f_rint(double x) { return x * rint(x); }

int main(void) {
    const double xs[] = {2.7, -1.3};
    for (int i = 0; i < 2; i++) {
        double x = xs[i];
        printf("grad floor@%g %.17g %.17g\n", x, __enzyme_autodiff((void *)f_floor, x), floor(x));
        printf("grad ceil@%g %.17g %.17g\n", x, __enzyme_autodiff((void *)f_ceil, x), ceil(x));
        printf("grad trunc@%g %.17g %.17g\n", x, __enzyme_autodiff((void *)f_trunc, x), trunc(x));
        printf("grad round@%g %.17g %.17g\n", x, __enzyme_autodiff((void *)f_round, x), round(x));
        printf("grad rint@%g %.17g %.17g\n", x, __enzyme_autodiff((void *)f_rint, x), rint(x));
    }
    return 0;
}
