#include "poly.h"

double poly_deriv_eval(const double *coef, int degree, double x) {
    double d[16];
    for (int i = 1; i <= degree; ++i)
        d[i - 1] = i * coef[i];
    return poly_eval(d, degree - 1, x);
}
