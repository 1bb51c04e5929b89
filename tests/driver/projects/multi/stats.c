#include "vec.h"

double stat_mean(const double *a, size_t n) {
    double s = 0.0;
    for (size_t i = 0; i < n; ++i)
        s += a[i];
    return s / (double)n;
}
