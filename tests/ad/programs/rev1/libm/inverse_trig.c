// asin, acos, atan and atan2 (both arguments, all four quadrants).
// tol: rel=1e-12 abs=1e-14
// grads: 14
#include <math.h>
#include <stdio.h>

extern int enzyme_out;
typedef struct { double dy, dx; } Pair;
double __enzyme_autodiff(void *, ...);
Pair __enzyme_autodiff_pair(void *, int, double, int, double);

double f_asin(double x) { return asin(x); }
double f_acos(double x) { return acos(x); }
double f_atan(double x) { return atan(x); }
double f_atan2(double y, double x) { return atan2(y, x); }

int main(void) {
    const double xs[] = {0.35, -0.8};
    for (int i = 0; i < 2; i++) {
        double x = xs[i];
        printf("grad asin@%g %.17g %.17g\n", x, __enzyme_autodiff((void *)f_asin, x),
               1 / sqrt(1 - x * x));
        printf("grad acos@%g %.17g %.17g\n", x, __enzyme_autodiff((void *)f_acos, x),
               -1 / sqrt(1 - x * x));
        printf("grad atan@%g %.17g %.17g\n", x, __enzyme_autodiff((void *)f_atan, x),
               1 / (1 + x * x));
    }
    const double pts[4][2] = {{1.0, 2.0}, {1.5, -0.5}, {-2.0, -1.0}, {-0.3, 0.9}};
    for (int i = 0; i < 4; i++) {
        double y = pts[i][0], x = pts[i][1], r2 = x * x + y * y;
        Pair p = __enzyme_autodiff_pair((void *)f_atan2, enzyme_out, y, enzyme_out, x);
        printf("grad atan2.dy#%d %.17g %.17g\n", i, p.dy, x / r2);
        printf("grad atan2.dx#%d %.17g %.17g\n", i, p.dx, -y / r2);
    }
    return 0;
}
