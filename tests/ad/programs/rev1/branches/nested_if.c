// Nested conditions on two active inputs: four regions, each with its own formula.
// tol: rel=1e-12 abs=1e-14
// grads: 8
#include <math.h>
#include <stdio.h>

extern int enzyme_out;
typedef struct { double dx, dy; } Pair;
Pair __enzyme_autodiff_pair(void *, int, double, int, double);

double quad(double x, double y) {
    double r;
    if (x > 0) {
        if (y > 0) r = x * y;
        else r = x * x - y;
    } else {
        if (y > x) r = exp(x) * y;
        else r = sin(y) - x;
    }
    return r * r;
}

int main(void) {
    const double pts[4][2] = {{1.5, 2.0}, {1.5, -1.0}, {-0.5, 0.3}, {-0.5, -2.0}};
    for (int i = 0; i < 4; i++) {
        double x = pts[i][0], y = pts[i][1], r, rx, ry;
        if (x > 0) {
            if (y > 0) { r = x * y; rx = y; ry = x; }
            else { r = x * x - y; rx = 2 * x; ry = -1; }
        } else {
            if (y > x) { r = exp(x) * y; rx = exp(x) * y; ry = exp(x); }
            else { r = sin(y) - x; rx = -1; ry = cos(y); }
        }
        Pair p = __enzyme_autodiff_pair((void *)quad, enzyme_out, x, enzyme_out, y);
        printf("grad dx#%d %.17g %.17g\n", i, p.dx, 2 * r * rx);
        printf("grad dy#%d %.17g %.17g\n", i, p.dy, 2 * r * ry);
    }
    return 0;
}
