// fmod and remainder in both arguments: x - n*y with n the quotient truncated (fmod)
// or rounded to nearest, ties to even (remainder), so d/dx = 1 and d/dy = -n.
// Quotients 3.47 (fmod 3, remainder 3), 2.6 (2, 3), -2.6 (-2, -3), 2.5 (2, 2: a tie
// rounds to even) and 3.5 (3, 4); forward mode must agree.
// tol: rel=1e-12 abs=1e-14
// grads: 25
#include <math.h>
#include <stdio.h>

extern int enzyme_out;
typedef struct { double dx, dy; } Pair;
Pair __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

double f_fmod(double x, double y) { return fmod(x, y); }
double f_remainder(double x, double y) { return remainder(x, y); }

int main(void) {
    const double xs[5] = {7.3, 2.6, -2.6, 2.5, 3.5}, ys[5] = {2.1037463976945245, 1.0, 1.0, 1.0, 1.0};
    for (int k = 0; k < 5; k++) {
        double x = xs[k], y = ys[k];
        Pair f = __enzyme_autodiff((void *)f_fmod, enzyme_out, x, enzyme_out, y);
        Pair r = __enzyme_autodiff((void *)f_remainder, enzyme_out, x, enzyme_out, y);
        printf("grad fmod.dx[%d] %.17g %.17g\n", k, f.dx, 1.0);
        printf("grad fmod.dy[%d] %.17g %.17g\n", k, f.dy, -trunc(x / y));
        printf("grad remainder.dx[%d] %.17g %.17g\n", k, r.dx, 1.0);
        printf("grad remainder.dy[%d] %.17g %.17g\n", k, r.dy, -nearbyint(x / y));
        double fwd = __enzyme_fwddiff((void *)f_remainder, x, 0.0, y, 1.0);
        printf("grad remainder.fwd.dy[%d] %.17g %.17g\n", k, fwd, -nearbyint(x / y));
    }
    return 0;
}
