/* The loss the Python-API benchmark differentiates: elementwise libm work and a sum,
 * O(n), the shape of a typical data-fitting loss. */
#include <math.h>

double loss(const double *x, const double *y, int n) {
    double s = 0;
    for (int i = 0; i < n; i++) {
        double r = x[i] - y[i];
        s += log1p(r * r) + 0.5 * sin(x[i]);
    }
    return s / n;
}

double dot2(const double *a, const double *b, int n) {
    double s = 0;
    for (int i = 0; i < n; i++) s += a[i] * b[i];
    return s;
}
