// frexp: the mantissa's derivative is 2^-e, and the exponent it writes through its
// pointer is reused later in the loop, so the reverse pass must read each iteration's
// exponent (the call writes that int, it is not a pure math call); x = 0 included.
// tol: rel=1e-12 abs=1e-14
// grads: 6
#include <math.h>
#include <stdio.h>

double __enzyme_autodiff(void *, ...);

double weigh(const double *x, int n) {
    double s = 0;
    int e;
    for (int i = 0; i < n; i++) {
        double m = frexp(x[i], &e);
        s += m * m * e + m * x[i];
    }
    return s;
}

int main(void) {
    enum { N = 6 };
    double x[N] = {0.3, 5.0, -12.5, 0.0, 1000.0, -0.01}, dx[N] = {0};
    __enzyme_autodiff((void *)weigh, x, dx, N);
    for (int i = 0; i < N; i++) {
        int e;
        double m = frexp(x[i], &e);
        double dm = ldexp(1.0, -e); /* d m / d x */
        double ref = 2 * m * dm * e + dm * x[i] + m;
        printf("grad dx[%d] %.17g %.17g\n", i, dx[i], ref);
    }
    return 0;
}
