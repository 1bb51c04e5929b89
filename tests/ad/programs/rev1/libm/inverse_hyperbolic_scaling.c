// asinh, acosh, atanh, ldexp, scalbn, scalbln, fdim (double and float forms).
// Reference: analytic derivatives (the float line limits agreement to float rounding).
// tol: rel=1e-6 abs=1e-12
// grads: 7
#include <math.h>
#include <stdio.h>

double __enzyme_autodiff(void *, ...);

double f(double x, double y) {
    return asinh(x) * 2 + acosh(x + 2) + atanh(x / 3) + ldexp(x * y, 3) + scalbn(y, -2) + scalbln(x, 5L)
           + fdim(x, y) * 3 + fdim(y, x);
}

float ff(float x) { return asinhf(x) + ldexpf(x, 4) + fdimf(x, 0.1f); }

typedef struct { double dx, dy; } Pair;

int main(void) {
    double y = 0.3;
    for (double x = -0.5; x < 1; x += 0.7) {
        Pair d = ((Pair(*)(void *, double, double))__enzyme_autodiff)((void *)f, x, y);
        double a = x + 2, above = x > y ? 1 : 0;
        double ref_x = 2 / sqrt(x * x + 1) + 1 / sqrt(a * a - 1) + (1 / 3.0) / (1 - x * x / 9) + 8 * y + 32
                       + 3 * above - (1 - above);
        double ref_y = 8 * x + 0.25 - 3 * above + (1 - above);
        printf("grad dx[%g] %.17g %.17g\n", x, d.dx, ref_x);
        printf("grad dy[%g] %.17g %.17g\n", x, d.dy, ref_y);
    }
    float df = ((float (*)(void *, float))__enzyme_autodiff)((void *)ff, 0.5f);
    printf("grad ff %.17g %.17g\n", (double)df, (double)(1 / sqrtf(1.25f) + 16 + 1));
    return 0;
}
