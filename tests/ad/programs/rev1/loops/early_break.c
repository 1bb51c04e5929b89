// A loop left by `break` once a running sum passes a threshold; only the terms before
// the break get a derivative.
// tol: rel=1e-12 abs=1e-14
// grads: 8
#include <math.h>
#include <stdio.h>

extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);

double capped(const double *x, int n, double cap) {
    double s = 0;
    for (int i = 0; i < n; i++) {
        s += exp(x[i]);
        if (s > cap) break;
    }
    return s * s;
}

int main(void) {
    enum { N = 8 };
    double x[N], dx[N] = {0};
    for (int i = 0; i < N; i++) x[i] = 0.2 * i;
    double cap = 5.0;
    __enzyme_autodiff((void *)capped, enzyme_dup, x, dx, enzyme_const, N, enzyme_const, cap);
    double s = 0;
    int last = N - 1;
    for (int i = 0; i < N; i++) {
        s += exp(x[i]);
        if (s > cap) { last = i; break; }
    }
    for (int i = 0; i < N; i++)
        printf("grad dx[%d] %.17g %.17g\n", i, dx[i], i <= last ? 2 * s * exp(x[i]) : 0.0);
    return 0;
}
