// enzyme_primal_return (first, before the arguments): reverse mode returns f's
// result before the derivatives of the out arguments, forward mode {result,
// tangent}. A function with two returns and a loop, against the analytic values.
// tol: rel=1e-12 abs=1e-14
// grads: 10
#include <math.h>
#include <stdio.h>

extern int enzyme_primal_return, enzyme_out, enzyme_dup, enzyme_const;
typedef struct { double result, dx, dy; } WithResult;
typedef struct { double result, tangent; } Dual;
WithResult __enzyme_autodiff(void *, ...);
Dual __enzyme_fwddiff(void *, ...);

double f(double x, double y, int n) {
    if (x < 0) return y * y;
    double s = 0;
    for (int k = 1; k <= n; k++) s += sin(k * x) * y;
    return s;
}

int main(void) {
    const double xs[2] = {0.7, -0.5};
    for (int i = 0; i < 2; i++) {
        double x = xs[i], y = 1.3;
        int n = 3;
        double fx = 0, fy = 0;
        if (x < 0) fy = 2 * y;
        else
            for (int k = 1; k <= n; k++) {
                fx += k * cos(k * x) * y;
                fy += sin(k * x);
            }
        WithResult r = __enzyme_autodiff((void *)f, enzyme_primal_return, enzyme_out, x, enzyme_out, y,
                                         enzyme_const, n);
        printf("grad result@%d %.17g %.17g\n", i, r.result, f(x, y, n));
        printf("grad dx@%d %.17g %.17g\n", i, r.dx, fx);
        printf("grad dy@%d %.17g %.17g\n", i, r.dy, fy);
        Dual d = __enzyme_fwddiff((void *)f, enzyme_primal_return, x, 1.0, y, 0.0, enzyme_const, n);
        printf("grad fwd_result@%d %.17g %.17g\n", i, d.result, f(x, y, n));
        printf("grad fwd_dx@%d %.17g %.17g\n", i, d.tangent, fx);
    }
    return 0;
}
