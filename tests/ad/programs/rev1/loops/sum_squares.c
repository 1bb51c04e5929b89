// Sum of squares of an array into a zero-initialised shadow array (void entry point).
// tol: rel=1e-12 abs=1e-14
// grads: 8
#include <stdio.h>

extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);

double sumsq(const double *x, int n) {
    double s = 0;
    for (int i = 0; i < n; i++) s += x[i] * x[i];
    return s;
}

int main(void) {
    enum { N = 8 };
    double x[N], dx[N];
    for (int i = 0; i < N; i++) { x[i] = 0.5 * i - 1.25; dx[i] = 0.0; }
    __enzyme_autodiff((void *)sumsq, enzyme_dup, x, dx, enzyme_const, N);
    for (int i = 0; i < N; i++) printf("grad dx[%d] %.17g %.17g\n", i, dx[i], 2 * x[i]);
    return 0;
}
