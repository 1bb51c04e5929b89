// Integer arguments default to const, doubles to out, without any marker.
// tol: rel=1e-12 abs=1e-14
// grads: 4
#include <stdio.h>

double __enzyme_autodiff(void *, ...);

double powloop(double x, int n) {
    double r = 1.0;
    for (int i = 0; i < n; i++) r *= x;
    return r;
}

double scaled(int k, double x, long m) { return (double)k * x * x + (double)m * x; }

int main(void) {
    double x = 1.3;
    for (int n = 2; n <= 4; n++) {
        double d = __enzyme_autodiff((void *)powloop, x, n);
        double ref = n;
        for (int i = 0; i < n - 1; i++) ref *= x;
        printf("grad powloop_n%d %.17g %.17g\n", n, d, ref);
    }
    double s = __enzyme_autodiff((void *)scaled, 3, x, 7L);
    printf("grad scaled %.17g %.17g\n", s, 6.0 * x + 7.0);
    return 0;
}
