// __enzyme_fwdsplit of functions that read and write none of the caller's memory
// (libm calls, a local array): the tangent alone, with a NULL tape or none, and
// with enzyme_primal_return {result, tangent}; against analytic derivatives.
// tol: rel=1e-12 abs=1e-14
// grads: 10
#include <math.h>
#include <stdio.h>

double __enzyme_fwdsplit(void *, ...);
typedef struct { double value, tangent; } Dual;
Dual __enzyme_fwdsplit_pair(void *, ...);
extern int enzyme_dup, enzyme_const, enzyme_primal_return;

double f(double x, double y) { return exp(x) * sin(y) + pow(x, y); }

double poly(double x, int n) {
    double c[8];
    for (int i = 0; i < n && i < 8; i++) c[i] = (i + 1) * x;  /* c[i] = (i+1) x */
    double s = 0;
    for (int i = n < 8 ? n - 1 : 7; i >= 0; i--) s = s * x + c[i];
    return s;
}

int main(void) {
    const double pts[2][2] = {{0.7, 1.3}, {1.9, -0.4}};
    for (int k = 0; k < 2; k++) {
        double x = pts[k][0], y = pts[k][1];
        double fx = exp(x) * sin(y) + y * pow(x, y - 1), fy = exp(x) * cos(y) + pow(x, y) * log(x);
        printf("grad df/dx@%d %.17g %.17g\n", k, __enzyme_fwdsplit((void *)f, x, 1.0, y, 0.0, (void *)0), fx);
        printf("grad df/dy@%d %.17g %.17g\n", k, __enzyme_fwdsplit((void *)f, x, 0.0, enzyme_dup, y, 1.0), fy);
        Dual d = __enzyme_fwdsplit_pair((void *)f, enzyme_primal_return, x, 2.0, y, -1.0, (void *)0);
        printf("grad value@%d %.17g %.17g\n", k, d.value, f(x, y));
        printf("grad dir@%d %.17g %.17g\n", k, d.tangent, 2 * fx - fy);
        /* poly(x, 4) = x + 2x^2 + 3x^3 + 4x^4 */
        double dp = 1 + 4 * x + 9 * x * x + 16 * x * x * x;
        printf("grad poly@%d %.17g %.17g\n", k, __enzyme_fwdsplit((void *)poly, x, 1.0, enzyme_const, 4, (void *)0), dp);
    }
    return 0;
}
