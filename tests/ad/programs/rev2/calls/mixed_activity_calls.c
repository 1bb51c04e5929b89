// One noinline helper called with different activity at different call sites (both
// arguments active, only the first, only the second): derivatives are specialized
// per activity signature.
// tol: rel=1e-12 abs=1e-14
// grads: 2
#include <math.h>
#include <stdio.h>

extern int enzyme_out, enzyme_const;
typedef struct { double dx, dy; } Pair;
Pair __enzyme_autodiff_pair(void *, int, double, int, double);

__attribute__((noinline)) double h(double a, double b) { return a * exp(b); }

double f(double x, double y) {
    double c = 0.5;
    return h(x, y) + h(x, c) + h(c, y) + h(c, c);
}

int main(void) {
    double x = 1.3, y = -0.4;
    Pair p = __enzyme_autodiff_pair((void *)f, enzyme_out, x, enzyme_out, y);
    printf("grad dx %.17g %.17g\n", p.dx, exp(y) + exp(0.5));
    printf("grad dy %.17g %.17g\n", p.dy, x * exp(y) + 0.5 * exp(y));
    return 0;
}
