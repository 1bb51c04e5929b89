// Vector forward mode with Enzyme's strided markers: enzyme_width, 3 and
// enzyme_dupv, stride, x, dx pass the tangents of all three lanes in one buffer (lane
// k at k * stride bytes); enzyme_dupnoneedv the same for an output. The whole 2x3
// Jacobian of a map through a loop and a noinline helper in one call.
// Reference: the analytic Jacobian.
// tol: rel=1e-12 abs=1e-14
// grads: 6
#include <math.h>
#include <stdio.h>

void __enzyme_fwddiff(void *, ...);
extern int enzyme_width, enzyme_dupv, enzyme_dupnoneedv, enzyme_const;

__attribute__((noinline)) double weight(double a, double b) { return a * exp(b); }

void map(const double *x, double *y, int n) {
    double s = 0;
    for (int i = 0; i < n; i++) s += x[i] * x[i];
    y[0] = weight(x[0], x[1]) + s;
    y[1] = sin(x[2]) * x[0];
}

int main(void) {
    double x[3] = {0.5, -0.3, 1.2}, y[2];
    double dx[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}, dy[3][2] = {{0}};
    __enzyme_fwddiff((void *)map, enzyme_width, 3, enzyme_dupv, sizeof dx[0], x, dx[0],
                     enzyme_dupnoneedv, sizeof dy[0], y, dy[0], enzyme_const, 3);
    double J[2][3] = {{exp(x[1]) + 2 * x[0], x[0] * exp(x[1]) + 2 * x[1], 2 * x[2]},
                      {sin(x[2]), 0, cos(x[2]) * x[0]}};
    for (int j = 0; j < 3; j++)
        for (int i = 0; i < 2; i++) printf("grad J[%d][%d] %.17g %.17g\n", i, j, dy[j][i], J[i][j]);
    return 0;
}
