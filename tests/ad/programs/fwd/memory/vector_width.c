// Vector forward mode: enzyme_width, N passes N tangents (or N shadows) after each
// differentiated argument and returns N tangents. The whole 2x3 Jacobian of a map
// through arrays, a noinline helper (its forward derivative takes the N tangents
// too) and a loop, in one call; and the scalar form returning a struct of tangents.
// tol: rel=1e-12 abs=1e-14
// grads: 8
#include <math.h>
#include <stdio.h>

void __enzyme_fwddiff(void *, ...);
typedef struct { double d0, d1; } Two;
Two __enzyme_fwddiff_two(void *, ...);
extern int enzyme_width, enzyme_dup, enzyme_dupnoneed, enzyme_const;

__attribute__((noinline)) double weight(double a, double b) { return a * exp(b); }

void map(const double *x, double *y, int n) {
    double s = 0;
    for (int i = 0; i < n; i++) s += x[i] * x[i];
    y[0] = weight(x[0], x[1]) + s;
    y[1] = sin(x[2]) * x[0];
}

double scalar(double a, double b) { return a * a * b + weight(b, a); }

int main(void) {
    double x[3] = {0.5, -0.3, 1.2}, y[2];
    double e0[3] = {1, 0, 0}, e1[3] = {0, 1, 0}, e2[3] = {0, 0, 1};
    double c0[2] = {0}, c1[2] = {0}, c2[2] = {0};
    __enzyme_fwddiff((void *)map, enzyme_width, 3, enzyme_dup, x, e0, e1, e2, enzyme_dupnoneed, y, c0, c1, c2,
                     enzyme_const, 3);
    double J[2][3] = {{exp(x[1]) + 2 * x[0], x[0] * exp(x[1]) + 2 * x[1], 2 * x[2]},
                      {sin(x[2]), 0, cos(x[2]) * x[0]}};
    double *cols[3] = {c0, c1, c2};
    for (int j = 0; j < 3; j++)
        for (int i = 0; i < 2; i++) printf("grad J[%d][%d] %.17g %.17g\n", i, j, cols[j][i], J[i][j]);
    double a = 0.7, b = -0.4;
    Two g = __enzyme_fwddiff_two((void *)scalar, enzyme_width, 2, a, 1.0, 0.0, b, 0.0, 1.0);
    printf("grad ds/da %.17g %.17g\n", g.d0, 2 * a * b + b * exp(a));
    printf("grad ds/db %.17g %.17g\n", g.d1, a * a + exp(a));
    return 0;
}
