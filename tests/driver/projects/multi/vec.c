#include "vec.h"

int vec_calls;

static double helper(double a, double b) { return a * b; }

double vec_dot(const double *a, const double *b, size_t n) {
    double s = 0.0;
    ++vec_calls;
    for (size_t i = 0; i < n; ++i)
        s += helper(a[i], b[i]);
    return s;
}

void vec_axpy(double alpha, const double *x, double *y, size_t n) {
    ++vec_calls;
    for (size_t i = 0; i < n; ++i)
        y[i] += alpha * x[i];
}
