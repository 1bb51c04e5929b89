#include "vec.h"

double stat_variance(const double *a, size_t n) {
    double m = stat_mean(a, n), s = 0.0;
    for (size_t i = 0; i < n; ++i)
        s += (a[i] - m) * (a[i] - m);
    return s / (double)n;
}
