// A chain of noinline calls a -> b -> c whose intermediate results the reverse pass
// needs (returned values, not just arguments).
// tol: rel=1e-12 abs=1e-14
// grads: 3
#include <math.h>
#include <stdio.h>

double __enzyme_autodiff(void *, ...);

__attribute__((noinline)) double c3(double x) { return x * x * x; }
__attribute__((noinline)) double b2(double x) { return sin(c3(x)) * c3(x + 1.0); }
__attribute__((noinline)) double a1(double x) { return exp(b2(x)) + b2(2.0 * x); }

int main(void) {
    const double xs[] = {0.4, -0.7, 1.1};
    for (int i = 0; i < 3; i++) {
        double x = xs[i];
        /* b(x) = sin(x^3) (x+1)^3, b'(x) = cos(x^3) 3x^2 (x+1)^3 + sin(x^3) 3 (x+1)^2 */
#define B(v) (sin((v) * (v) * (v)) * ((v) + 1) * ((v) + 1) * ((v) + 1))
#define DB(v) (cos((v) * (v) * (v)) * 3 * (v) * (v) * ((v) + 1) * ((v) + 1) * ((v) + 1) \
               + sin((v) * (v) * (v)) * 3 * ((v) + 1) * ((v) + 1))
        double ref = exp(B(x)) * DB(x) + 2 * DB(2 * x);
        printf("grad a1@%g %.17g %.17g\n", x, __enzyme_autodiff((void *)a1, x), ref);
    }
    return 0;
}
