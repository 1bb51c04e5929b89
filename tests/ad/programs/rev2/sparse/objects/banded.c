// Helper for main.c (built by make): the banded matrix's dense product and its todense
// load/store functions, in their own translation unit.
#include "banded.h"

void matvec(const double *a, const double *x, double *y, int n) {
    for (int i = 0; i < n; i++) {
        double s = 0.0;
        for (int j = 0; j < n; j++)
            s += a[i * n + j] * x[j];
        y[i] = s;
    }
}

double band_load(int64_t offset, double *diag, double *lower, double *upper, int n) {
    int64_t k = offset / (int64_t)sizeof(double), i = k / n, j = k % n;
    if (i == j)
        return diag[i];
    if (i == j + 1)
        return lower[j];
    if (j == i + 1)
        return upper[i];
    return 0.0;
}

void band_store(double v, int64_t offset, double *diag, double *lower, double *upper, int n) {
    int64_t k = offset / (int64_t)sizeof(double), i = k / n, j = k % n;
    if (i == j)
        diag[i] = v;
    else if (i == j + 1)
        lower[j] = v;
    else if (j == i + 1)
        upper[i] = v;
}
