// A noinline function taking a large struct by value (passed in memory, `byval`) and
// a small one in registers.
// tol: rel=1e-12 abs=1e-14
// grads: 4
#include <math.h>
#include <stdio.h>

extern int enzyme_dup;
double __enzyme_autodiff(void *, ...);

typedef struct { double a, b, c, d; } Big;
typedef struct { double u, v; } Small;

__attribute__((noinline)) double use_big(Big g) { return g.a * g.b + sin(g.c) * g.d; }
__attribute__((noinline)) double use_small(Small s) { return s.u * s.u * s.v; }

double f(const double *x) {
    Big g = {x[0], x[1], x[2], x[3]};
    Small s = {x[1], x[3]};
    return use_big(g) + use_small(s);
}

int main(void) {
    double x[4] = {1.1, -0.4, 0.8, 2.0}, dx[4] = {0};
    __enzyme_autodiff((void *)f, enzyme_dup, x, dx);
    printf("grad dx0 %.17g %.17g\n", dx[0], x[1]);
    printf("grad dx1 %.17g %.17g\n", dx[1], x[0] + 2 * x[1] * x[3]);
    printf("grad dx2 %.17g %.17g\n", dx[2], cos(x[2]) * x[3]);
    printf("grad dx3 %.17g %.17g\n", dx[3], sin(x[2]) + x[1] * x[1]);
    return 0;
}
