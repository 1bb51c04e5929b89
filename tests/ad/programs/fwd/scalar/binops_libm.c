// Forward mode on scalars: __enzyme_fwddiff(f, x, dx, y, dy) returns the directional
// derivative; floats without a marker are dup (value, then tangent). Arithmetic,
// libm calls and a branch, against the analytic partials.
// tol: rel=1e-12 abs=1e-14
// grads: 6
#include <math.h>
#include <stdio.h>

double __enzyme_fwddiff(void *, ...);
extern int enzyme_dup, enzyme_const;

double f(double x, double y) {
    double s = sin(x) * exp(y) + x / (1 + y * y);
    if (x > y) s += sqrt(x * x + 1) - log1p(y * y);
    else s -= tanh(x - y) * pow(y, 3);
    return s;
}

double fx(double x, double y) {
    double s = cos(x) * exp(y) + 1 / (1 + y * y);
    if (x > y) s += x / sqrt(x * x + 1);
    else s -= (1 - tanh(x - y) * tanh(x - y)) * pow(y, 3);
    return s;
}

double fy(double x, double y) {
    double s = sin(x) * exp(y) - x * 2 * y / ((1 + y * y) * (1 + y * y));
    if (x > y) s -= 2 * y / (1 + y * y);
    else s -= -(1 - tanh(x - y) * tanh(x - y)) * pow(y, 3) + tanh(x - y) * 3 * y * y;
    return s;
}

int main(void) {
    const double pts[3][2] = {{0.7, 0.2}, {-0.4, 1.3}, {1.5, -0.6}};
    for (int k = 0; k < 3; k++) {
        double x = pts[k][0], y = pts[k][1];
        double dx = __enzyme_fwddiff((void *)f, x, 1.0, y, 0.0);
        double dy = __enzyme_fwddiff((void *)f, enzyme_dup, x, 0.0, enzyme_dup, y, 1.0);
        printf("grad df/dx@%d %.17g %.17g\n", k, dx, fx(x, y));
        printf("grad df/dy@%d %.17g %.17g\n", k, dy, fy(x, y));
    }
    return 0;
}
