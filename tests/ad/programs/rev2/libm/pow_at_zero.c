// pow at a zero base or a zero exponent: d/dy x^y = x^y log x tends to 0 as x -> 0+
// (y > 0), and x^0 does not depend on x; the rule must give those limits, not
// 0 * inf = NaN. Also -ffast-math, where clang may fold pow differently.
// tol: rel=1e-12 abs=1e-14
// grads: 10
// flags: -ffast-math
#include <math.h>
#include <stdio.h>

void __enzyme_autodiff(void *, ...);

void power(const double *x, const double *y, double *out) { *out = pow(*x, *y); }

int main(void) {
    const double xs[5] = {0.0, 0.0, 0.0, 2.0, 1.5}, ys[5] = {1.0, 2.5, 0.0, 0.0, 3.0};
    for (int k = 0; k < 5; k++) {
        double x = xs[k], y = ys[k], dx = 0, dy = 0, out = 0, dout = 1;
        __enzyme_autodiff((void *)power, &x, &dx, &y, &dy, &out, &dout);
        double rx = y == 0 ? 0 : y * pow(x, y - 1);
        double ry = x == 0 ? 0 : pow(x, y) * log(x);
        printf("grad dx[%d] %.17g %.17g\n", k, dx, rx);
        printf("grad dy[%d] %.17g %.17g\n", k, dy, ry);
    }
    return 0;
}
