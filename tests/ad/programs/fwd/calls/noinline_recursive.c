// Forward mode across calls that stay calls: a noinline helper called in a loop
// (its own forward derivative, fwddiffe_helper, returns {primal, tangent}), a
// helper writing through a pointer, and a recursive power function.
// tol: rel=1e-12 abs=1e-14
// grads: 3
#include <math.h>
#include <stdio.h>

double __enzyme_fwddiff(void *, ...);
extern int enzyme_dup, enzyme_const;

__attribute__((noinline)) double helper(double a, double b) { return a * sin(b) + b * b; }

__attribute__((noinline)) void scale_into(const double *src, double *dst, double s) { *dst = *src * s; }

__attribute__((noinline)) double rpow(double x, int n) { return n == 0 ? 1.0 : x * rpow(x, n - 1); }

double f(double x) {
    double acc = 0, t;
    for (int i = 1; i <= 4; i++) acc += helper(x, x * i);
    scale_into(&acc, &t, x);
    return t + rpow(x, 5);
}

double fprime(double x) {
    double acc = 0, dacc = 0;
    for (int i = 1; i <= 4; i++) {
        acc += x * sin(x * i) + x * i * x * i;
        dacc += sin(x * i) + x * cos(x * i) * i + 2 * x * i * i;
    }
    return dacc * x + acc + 5 * pow(x, 4);
}

int main(void) {
    const double xs[3] = {0.3, 1.1, -0.8};
    for (int k = 0; k < 3; k++)
        printf("grad f'@%g %.17g %.17g\n", xs[k], __enzyme_fwddiff((void *)f, xs[k], 1.0), fprime(xs[k]));
    return 0;
}
