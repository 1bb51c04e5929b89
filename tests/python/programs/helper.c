#include <math.h>
#ifndef REAL
#define REAL double
#endif
REAL weighted_dot(const REAL *w, const REAL *x, int n) {
    REAL s = 0;
    for (int i = 0; i < n; i++)
        s += w[i] * x[i] * cos(x[i]);
    return s;
}
