// The smallest case of an active result returned through an out-parameter of a
// noinline function: x is only defined by the call, so its derivative flows
// through the callee's store (a gradient ignoring the call would be half the truth).
// tol: rel=1e-12 abs=1e-14
// grads: 3
#include <stdio.h>

extern int enzyme_dup;
double __enzyme_autodiff(void *, ...);

__attribute__((noinline)) void twice(double r, double *x) { *x = 2.0 * r; }

double f(const double *r) {
    double x;
    twice(r[0], &x);
    return x * r[0];
}

int main(void) {
    const double rs[] = {1.5, -0.5, 3.0};
    for (int i = 0; i < 3; i++) {
        double r[1] = {rs[i]}, dr[1] = {0};
        __enzyme_autodiff((void *)f, enzyme_dup, r, dr);
        printf("grad f@%g %.17g %.17g\n", rs[i], dr[0], 4 * rs[i]);
    }
    return 0;
}
