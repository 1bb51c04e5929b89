// __enzyme_iter(n, k): a loop bound that grows by k with each derivative order, so a
// truncated series keeps its accuracy when differentiated (Enzyme's mycos.c idea). The
// series for sin is cut at x^n: n = 3 in the primal, 5 in a first derivative, 7 in a
// second. References: the analytic derivatives of exactly those truncated
// polynomials (with n = 3 throughout, the first derivative would miss x^4/24 and the
// check would fail); reverse, reverse over reverse, forward and forward over reverse.
// tol: rel=1e-12 abs=1e-14
// grads: 10
#include <math.h>
#include <stdint.h>
#include <stdio.h>

double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);
uint64_t __enzyme_iter(uint64_t, uint64_t);

double sin_series(double x) {
    double s = 0, term = 1;
    uint64_t n = __enzyme_iter(3, 2);
    for (uint64_t i = 1; i <= n; i++) {
        term *= x / (double)i;
        if (i % 2) s += (i % 4 == 1 ? 1 : -1) * term;
    }
    return s;
}

double d1(double x) { return __enzyme_autodiff((void *)sin_series, x); }
double d2(double x) { return __enzyme_autodiff((void *)d1, x); }
double f1(double x) { return __enzyme_fwddiff((void *)sin_series, x, 1.0); }
double fr2(double x) { return __enzyme_fwddiff((void *)d1, x, 1.0); }

int main(void) {
    const double xs[2] = {0.9, -1.7};
    for (int k = 0; k < 2; k++) {
        double x = xs[k], x2 = x * x, x3 = x2 * x, x4 = x3 * x, x5 = x4 * x;
        printf("grad primal@%d %.17g %.17g\n", k, sin_series(x), x - x3 / 6);
        printf("grad rev1@%d %.17g %.17g\n", k, d1(x), 1 - x2 / 2 + x4 / 24);
        printf("grad fwd1@%d %.17g %.17g\n", k, f1(x), 1 - x2 / 2 + x4 / 24);
        printf("grad rev2@%d %.17g %.17g\n", k, d2(x), -x + x3 / 6 - x5 / 120);
        printf("grad fwdrev2@%d %.17g %.17g\n", k, fr2(x), -x + x3 / 6 - x5 / 120);
    }
    return 0;
}
