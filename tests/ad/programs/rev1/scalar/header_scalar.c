// Using the header the driver provides instead of own declarations.
// tol: rel=1e-12 abs=1e-14
// grads: 3
#include <enzyme/enzyme.h>
#include <math.h>
#include <stdio.h>

double g(double x, double y) { return sin(x) * y + x / y; }

int main(void) {
    double x = 0.4, y = 2.5;
    double dx = __enzyme_autodiff((void *)g, enzyme_out, x, enzyme_const, y);
    printf("grad dx %.17g %.17g\n", dx, cos(x) * y + 1 / y);
    double dy = __enzyme_autodiff((void *)g, enzyme_const, x, enzyme_out, y);
    printf("grad dy %.17g %.17g\n", dy, sin(x) - x / (y * y));
    double dx2 = __enzyme_autodiff((void *)g, x, enzyme_const, y);
    printf("grad dx_default %.17g %.17g\n", dx2, cos(x) * y + 1 / y);
    return 0;
}
