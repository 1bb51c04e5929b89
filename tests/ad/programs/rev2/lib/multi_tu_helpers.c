// Helper for multi_tu.c: the functions it calls, in their own translation unit.
#include <math.h>

double activation(double x) { return 1.0 / (1.0 + exp(-x)); }

void affine(const double *w, const double *x, double *y, int n) {
    for (int i = 0; i < n; i++) y[i] = w[i] * x[i] + 1.0;
}
