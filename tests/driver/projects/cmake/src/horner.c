#include "poly.h"

double poly_eval(const double *coef, int degree, double x) {
    double r = coef[degree];
    for (int i = degree - 1; i >= 0; --i)
        r = r * x + coef[i];
    return r;
}
