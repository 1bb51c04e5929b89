// A pointer argument without a marker is dup: its shadow follows it.
// tol: rel=1e-12 abs=1e-14
// grads: 4
#include <stdio.h>

double __enzyme_autodiff(void *, ...);

double weighted(const double *x, int n) {
    double s = 0;
    for (int i = 0; i < n; i++) s += (i + 1) * x[i] * x[i];
    return s;
}

int main(void) {
    double x[4] = {1.0, -2.0, 0.5, 3.0};
    double dx[4] = {0};
    __enzyme_autodiff((void *)weighted, x, dx, 4);
    for (int i = 0; i < 4; i++)
        printf("grad dx[%d] %.17g %.17g\n", i, dx[i], 2.0 * (i + 1) * x[i]);
    return 0;
}
