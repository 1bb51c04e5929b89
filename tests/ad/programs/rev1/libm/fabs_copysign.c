// fabs (both signs) and copysign: d/dx copysign(x, y) = sign(x) sign(y), d/dy = 0.
// tol: rel=1e-12 abs=1e-14
// grads: 8
#include <math.h>
#include <stdio.h>

extern int enzyme_out;
typedef struct { double dx, dy; } Pair;
double __enzyme_autodiff(void *, ...);
Pair __enzyme_autodiff_pair(void *, int, double, int, double);

double f_fabs(double x) { return fabs(x) * x; }
double f_copysign(double x, double y) { return copysign(x, y) * y; }

int main(void) {
    const double xs[] = {1.5, -2.5};
    for (int i = 0; i < 2; i++) {
        double x = xs[i]; /* d/dx |x| x = 2|x| */
        printf("grad fabs@%g %.17g %.17g\n", x, __enzyme_autodiff((void *)f_fabs, x),
               2 * fabs(x));
    }
    const double pts[3][2] = {{1.5, 2.0}, {-1.5, 2.0}, {1.5, -0.5}};
    for (int i = 0; i < 3; i++) {
        double x = pts[i][0], y = pts[i][1];
        double sx = x > 0 ? 1 : -1, sy = y > 0 ? 1 : -1;
        Pair p = __enzyme_autodiff_pair((void *)f_copysign, enzyme_out, x, enzyme_out, y);
        printf("grad copysign.dx#%d %.17g %.17g\n", i, p.dx, sx * sy * y);
        printf("grad copysign.dy#%d %.17g %.17g\n", i, p.dy, copysign(x, y));
    }
    return 0;
}
