// A custom gradient for a function returning a struct too large for registers (C
// returns it through a hidden `sret` pointer): as in Enzyme, the augmented and the
// reverse function take that pointer as their first parameter, followed by its
// shadow (the result's adjoint, which the reverse consumes), then f's arguments. The
// custom gradient is deliberately 3x the true one, so a differentiated body shows.
// tol: rel=1e-12 abs=1e-14
// grads: 4
#include <stdio.h>

double __enzyme_autodiff(void *, ...);

typedef struct { double a, b, c; } Triple;

__attribute__((noinline)) Triple powers(double x) {
    Triple r = {x, x * x, x * x * x};
    return r;
}
static void aug_powers(Triple *ret, Triple *d_ret, double x) {
    (void)d_ret;
    *ret = powers(x);
}
static double rev_powers(Triple *ret, Triple *d_ret, double x) {
    (void)ret;
    double g = 3.0 * (d_ret->a + 2 * x * d_ret->b + 3 * x * x * d_ret->c);
    d_ret->a = d_ret->b = d_ret->c = 0;
    return g;
}
void *__enzyme_register_gradient_powers[3] = {(void *)powers, (void *)aug_powers, (void *)rev_powers};

double weighted(double x) {
    Triple t = powers(x);
    return 2 * t.a + t.b - 0.5 * t.c;
}

int main(void) {
    const double xs[] = {0.5, -1.25, 2.0, 0.0};
    for (int i = 0; i < 4; i++) {
        double x = xs[i];
        printf("grad weighted@%g %.17g %.17g\n", x, __enzyme_autodiff((void *)weighted, x),
               3.0 * (2 + 2 * x - 1.5 * x * x));
    }
    return 0;
}
