// Second derivatives by nesting __enzyme_autodiff in static functions.
// clang emits a static function after its first user, so main (differentiating d1)
// comes before d1 (differentiating f) in the module: the inner entry point must
// still be lowered before d1 is differentiated. Analytic references.
// tol: rel=1e-12 abs=1e-14
// grads: 6
#include <math.h>
#include <stdio.h>

extern int enzyme_const;
double __enzyme_autodiff(void *, ...);

static double f(double x, double k) { return k * x * x * x * sin(x); }

/* f'(x) for k = 1, scaled by x: the inner call has a constant argument too */
static double d1(double x) { return __enzyme_autodiff((void *)f, x, enzyme_const, 1.0); }

static double d1_scaled(double x) { return x * d1(x); }


int main(void) {
    const double xs[3] = {0.3, 1.1, -2.0};
    for (int i = 0; i < 3; i++) {
        double x = xs[i], s = sin(x), c = cos(x);
        double f1 = 3 * x * x * s + x * x * x * c;
        double f2 = 6 * x * s + 6 * x * x * c - x * x * x * s;
        printf("grad d2f(%g) %.17g %.17g\n", x, __enzyme_autodiff((void *)d1, x), f2);
        printf("grad d_xf1(%g) %.17g %.17g\n", x, __enzyme_autodiff((void *)d1_scaled, x), f1 + x * f2);
    }
    return 0;
}
