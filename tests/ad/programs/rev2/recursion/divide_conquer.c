// Recursive divide and conquer over an array (sum of products of halves), with the
// recursion depth set by the data length.
// tol: rel=1e-12 abs=1e-14
// grads: 9
#include <math.h>
#include <stdio.h>

extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);

double dc(const double *x, int n) {
    if (n == 1) return sin(x[0]);
    int h = n / 2;
    double a = dc(x, h), b = dc(x + h, n - h);
    return a * b + a;
}

/* the same recursion computing value and gradient together, as the reference */
static double dc_ref(const double *x, int n, double *g) {
    if (n == 1) { g[0] = cos(x[0]); return sin(x[0]); }
    int h = n / 2;
    double ga[16], gb[16];
    double a = dc_ref(x, h, ga), b = dc_ref(x + h, n - h, gb);
    for (int i = 0; i < h; i++) g[i] = ga[i] * (b + 1);
    for (int i = 0; i < n - h; i++) g[h + i] = gb[i] * a;
    return a * b + a;
}

int main(void) {
    enum { N = 9 };
    double x[N], dx[N] = {0}, g[N];
    for (int i = 0; i < N; i++) x[i] = 0.3 + 0.15 * i;
    __enzyme_autodiff((void *)dc, enzyme_dup, x, dx, enzyme_const, N);
    dc_ref(x, N, g);
    for (int i = 0; i < N; i++) printf("grad dx[%d] %.17g %.17g\n", i, dx[i], g[i]);
    return 0;
}
