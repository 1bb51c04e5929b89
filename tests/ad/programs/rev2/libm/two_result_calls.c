// modf, modff, remquo and GNU sincos in differentiated code. Clang 22 turns modf(x, &ip) into
// the pair-returning intrinsic `llvm.modf`, which had no rule ("cannot
// differentiate call to external function 'llvm.modf.f64'"; ClangEnzyme-19, whose
// clang calls libm's modf, differentiates it); remquo had none either (Enzyme
// neither); sincos was "cannot differentiate call to external function 'sincos'"
// (it is a sin and a cos). The fraction moves with x, the integral part does not; remquo's
// remainder has remainder's partials. Negative arguments (the fraction's sign),
// an integral x's zero fraction, reverse and forward.
// Reference: central finite differences (points away from the jumps).
// tol: rel=1e-6 abs=1e-8
// grads: 15
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>

double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);
extern int enzyme_out;

double f(double x, double y) {
    double ip, jp;
    double fr = modf(x * y, &ip);
    double neg = modf(-x * 1.7, &jp);
    int q;
    double rq = remquo(y * 5.0, 1.5, &q);
    double s, c;
    sincos(x - y * 0.3, &s, &c);
    return sin(fr) * 3 + neg * neg + ip * 0.25 + jp + rq * 0.5 + q * 0.01 + s * c * 2 + s;
}

float g(float x) {  /* float: d/dx = 0.5 * fip (analytic: float differences are too coarse) */
    float fip;
    float ff = modff(x * 0.5f + 2.0f, &fip);
    return ff * fip;
}

typedef struct { double dx, dy; } G;
G __enzyme_autodiff_pair(void *, ...);

int main(void) {
    const double pts[3][2] = {{1.37, 5.3}, {-0.8, 2.2}, {2.05, -1.1}};
    const double h = 1e-6;
    for (int k = 0; k < 3; k++) {
        double x = pts[k][0], y = pts[k][1];
        G g = __enzyme_autodiff_pair((void *)f, enzyme_out, x, enzyme_out, y);
        double fx = (f(x + h, y) - f(x - h, y)) / (2 * h), fy = (f(x, y + h) - f(x, y - h)) / (2 * h);
        printf("grad p%d.dx %.17g %.17g\n", k, g.dx, fx);
        printf("grad p%d.dy %.17g %.17g\n", k, g.dy, fy);
        printf("grad p%d.fwd_dx %.17g %.17g\n", k, __enzyme_fwddiff((void *)f, x, 1.0, y, 0.0), fx);
        printf("grad p%d.fwd_dy %.17g %.17g\n", k, __enzyme_fwddiff((void *)f, x, 0.0, y, 1.0), fy);
    }
    for (float x = -1.3f; x < 2.0f; x += 1.1f) {
        float fip;
        modff(x * 0.5f + 2.0f, &fip);
        float d = ((float (*)(void *, float))__enzyme_autodiff)((void *)g, x);
        printf("grad g[%g] %.9g %.9g\n", x, d, 0.5f * fip);
    }
    return 0;
}
