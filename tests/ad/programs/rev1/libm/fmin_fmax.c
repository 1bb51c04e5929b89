// fmin and fmax route the adjoint to the selected argument, in both orders.
// tol: rel=1e-12 abs=1e-14
// grads: 8
#include <math.h>
#include <stdio.h>

extern int enzyme_out;
typedef struct { double dx, dy; } Pair;
Pair __enzyme_autodiff_pair(void *, int, double, int, double);

double f_min(double x, double y) { return fmin(x * x, 3 * y); }
double f_max(double x, double y) { return fmax(x * x, 3 * y); }

int main(void) {
    const double pts[2][2] = {{1.0, 2.0}, {3.0, 1.0}}; /* x*x < 3y, then x*x > 3y */
    for (int i = 0; i < 2; i++) {
        double x = pts[i][0], y = pts[i][1];
        int xsmall = x * x < 3 * y;
        Pair a = __enzyme_autodiff_pair((void *)f_min, enzyme_out, x, enzyme_out, y);
        printf("grad fmin.dx#%d %.17g %.17g\n", i, a.dx, xsmall ? 2 * x : 0.0);
        printf("grad fmin.dy#%d %.17g %.17g\n", i, a.dy, xsmall ? 0.0 : 3.0);
        Pair b = __enzyme_autodiff_pair((void *)f_max, enzyme_out, x, enzyme_out, y);
        printf("grad fmax.dx#%d %.17g %.17g\n", i, b.dx, xsmall ? 0.0 : 2 * x);
        printf("grad fmax.dy#%d %.17g %.17g\n", i, b.dy, xsmall ? 3.0 : 0.0);
    }
    return 0;
}
