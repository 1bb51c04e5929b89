// __enzyme_error_estimate on double scalars: a multiply, a sum, a quotient, a chain
// through sin and exp, and a cancellation, each against the reference formula of
// errest.h at several points and input errors (unmarked doubles are value, error).
// A result that is exactly 0 has no relative formula: infinite where an operand's
// error is divided by it, NaN where that meets a zero partial (an underflow), never
// a small number that would read as exact.
// tol: rel=1e-12 abs=0
// grads: 21
#include <stdio.h>
#include "errest.h"

double __enzyme_error_estimate(void *, ...);
extern int enzyme_const;

double mul(double x, double y) { return x * y; }

double sum3(double x, double y, double z) {
    double s = x + y;
    return s + z;
}

double quot(double x, double y) { return x / y; }

double chain(double x) { return exp(sin(x)); }

double expm1_naive(double x) {  /* (e^x - 1) / x loses digits for small x */
    double e = exp(x);
    double d = e - 1.0;
    return d / x;
}

double difference(double x, double y) { return x - y; }

double decay(double a) { return exp(-a); }

int main(void) {
    const double pts[3][3] = {{0.7, -1.3, 2.5}, {3.0e5, 1.0e-3, -7.25}, {-0.125, 0.5, 1.0e-8}};
    const double errs[3][3] = {{0.0, 0.0, 0.0}, {1e-10, 0.0, 3e-12}, {2e-16, 5e-13, 1e-3}};
    for (int k = 0; k < 3; k++) {
        double x = pts[k][0], y = pts[k][1], z = pts[k][2];
        double ex = errs[k][0], ey = errs[k][1], ez = errs[k][2];

        double r = x * y;
        double ref = op_error(r, through(y, ex, x, r) + through(x, ey, y, r));
        printf("grad mul@%d %.17g %.17g\n", k, __enzyme_error_estimate((void *)mul, x, ex, y, ey), ref);

        double s = x + y, t = s + z;
        double es = op_error(s, through(1, ex, x, s) + through(1, ey, y, s));
        ref = op_error(t, through(1, es, s, t) + through(1, ez, z, t));
        printf("grad sum3@%d %.17g %.17g\n", k, __enzyme_error_estimate((void *)sum3, x, ex, y, ey, z, ez), ref);
        /* z constant: its error is not an input */
        ref = op_error(t, through(1, es, s, t));
        printf("grad sum3_const_z@%d %.17g %.17g\n", k,
               __enzyme_error_estimate((void *)sum3, x, ex, y, ey, enzyme_const, z), ref);

        r = x / y;
        ref = op_error(r, through(1 / y, ex, x, r) + through(-x / (y * y), ey, y, r));
        printf("grad quot@%d %.17g %.17g\n", k, __enzyme_error_estimate((void *)quot, x, ex, y, ey), ref);

        double sn = sin(x), c = exp(sn);
        double esn = op_error(sn, through(cos(x), ex, x, sn));
        ref = op_error(c, through(c, esn, sn, c));
        printf("grad chain@%d %.17g %.17g\n", k, __enzyme_error_estimate((void *)chain, x, ex), ref);

        double h = (k + 1) * 1e-9, e = exp(h), d = e - 1.0, q = d / h;
        double ee = op_error(e, 0), ed = op_error(d, through(1, ee, e, d));
        ref = op_error(q, through(1 / h, ed, d, q) + through(-d / (h * h), 0, h, q));
        printf("grad cancel@%d %.17g %.17g\n", k, __enzyme_error_estimate((void *)expm1_naive, h, 0.0), ref);
    }
    double zero = __enzyme_error_estimate((void *)difference, 0.375, 1e-16, enzyme_const, 0.375);
    printf("grad zero_result_is_infinite %d 1\n", isinf(zero) && zero > 0);
    zero = __enzyme_error_estimate((void *)difference, 0.375, 1e-16, 0.375, 0.0);  /* 0 * y / 0 */
    printf("grad zero_result_is_nan %d 1\n", isnan(zero) != 0);
    double underflow = __enzyme_error_estimate((void *)decay, 800.0, 1e-12);
    printf("grad underflow_is_nan %d 1\n", isnan(underflow) != 0);
    return 0;
}
