// sin, cos and tan at a few points, including a composition sin(cos(x)) * tan(x).
// tol: rel=1e-12 abs=1e-14
// grads: 10
#include <math.h>
#include <stdio.h>

double __enzyme_autodiff(void *, ...);

double f_sin(double x) { return sin(x); }
double f_cos(double x) { return cos(x); }
double f_tan(double x) { return tan(x); }
double f_comp(double x) { return sin(cos(x)) * tan(x); }

int main(void) {
    const double xs[] = {0.3, 2.0, -1.1};
    for (int i = 0; i < 3; i++) {
        double x = xs[i];
        double c = cos(x);
        printf("grad sin@%g %.17g %.17g\n", x, __enzyme_autodiff((void *)f_sin, x), cos(x));
        printf("grad cos@%g %.17g %.17g\n", x, __enzyme_autodiff((void *)f_cos, x), -sin(x));
        printf("grad tan@%g %.17g %.17g\n", x, __enzyme_autodiff((void *)f_tan, x), 1 / (c * c));
    }
    double x = 0.6;
    double ref = cos(cos(x)) * -sin(x) * tan(x) + sin(cos(x)) / (cos(x) * cos(x));
    printf("grad comp %.17g %.17g\n", __enzyme_autodiff((void *)f_comp, x), ref);
    return 0;
}
