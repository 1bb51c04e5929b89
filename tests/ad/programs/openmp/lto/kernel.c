// The parallel kernel of lto/main.c, compiled as its own translation unit.
#include <math.h>

double kernel_loss(const double *x, double *y, int n) {
#pragma omp parallel for schedule(guided)
    for (int i = 0; i < n; i++)
        y[i] = x[i] * exp(x[(i + 3) % n]) - x[i] * x[i];
    double s = 0;
#pragma omp parallel for reduction(+ : s)
    for (int i = 0; i < n; i++)
        s += y[i] * y[i];
    return s;
}
