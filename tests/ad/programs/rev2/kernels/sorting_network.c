// In-place compare-and-swap sorting network on active data (data-dependent swaps),
// then a rank-weighted sum: each input's derivative is the weight of its sorted rank.
// tol: rel=1e-12 abs=1e-14
// grads: 6
#include <stdio.h>

extern int enzyme_dup;
double __enzyme_autodiff(void *, ...);

enum { N = 6 };

__attribute__((noinline)) void cswap(double *a, int i, int j) {
    if (a[i] > a[j]) {
        double t = a[i];
        a[i] = a[j];
        a[j] = t;
    }
}

double ranked(const double *x) {
    double a[N];
    for (int i = 0; i < N; i++) a[i] = x[i] * x[i];
    for (int pass = 0; pass < N; pass++) /* odd-even transposition sort */
        for (int i = pass % 2; i + 1 < N; i += 2) cswap(a, i, i + 1);
    double s = 0;
    for (int i = 0; i < N; i++) s += (i + 1) * a[i];
    return s;
}

int main(void) {
    double x[N] = {0.5, -2.0, 1.5, 0.1, -0.9, 1.2}, dx[N] = {0};
    __enzyme_autodiff((void *)ranked, enzyme_dup, x, dx);
    for (int i = 0; i < N; i++) {
        int rank = 0;
        for (int j = 0; j < N; j++) rank += x[j] * x[j] < x[i] * x[i];
        printf("grad dx[%d] %.17g %.17g\n", i, dx[i], (rank + 1) * 2 * x[i]);
    }
    return 0;
}
