// log, log2, log10 and log1p (log1p near 0).
// tol: rel=1e-12 abs=1e-14
// grads: 8
#include <math.h>
#include <stdio.h>

double __enzyme_autodiff(void *, ...);

double f_log(double x) { return log(x); }
double f_log2(double x) { return log2(x); }
double f_log10(double x) { return log10(x); }
double f_log1p(double x) { return log1p(x); }

int main(void) {
    const double xs[] = {3.25, 1e-7};
    for (int i = 0; i < 2; i++) {
        double x = xs[i];
        printf("grad log@%g %.17g %.17g\n", x, __enzyme_autodiff((void *)f_log, x), 1 / x);
        printf("grad log2@%g %.17g %.17g\n", x, __enzyme_autodiff((void *)f_log2, x),
               1 / (x * M_LN2));
        printf("grad log10@%g %.17g %.17g\n", x, __enzyme_autodiff((void *)f_log10, x),
               1 / (x * M_LN10));
        printf("grad log1p@%g %.17g %.17g\n", x, __enzyme_autodiff((void *)f_log1p, x),
               1 / (1 + x));
    }
    return 0;
}
