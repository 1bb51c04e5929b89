// A noinline callee that takes only scalars and returns a pointer to memory it
// allocated (or into a global) holding active values: the caller reads them back.
// The returned pointer needs a shadow although no argument of the call has one
// (was: no shadow, the caller's loads were dropped, a zero gradient). Also a block
// filled in a loop, freed by the caller, and the pointer passed on to a second call.
// tol: rel=1e-12 abs=1e-14
// grads: 8
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

double __enzyme_autodiff(void *, ...);
extern int enzyme_dup, enzyme_const;

__attribute__((noinline)) double *square_box(double x) {
    double *m = malloc(sizeof *m);
    *m = x * x;
    return m;
}

__attribute__((noinline)) double *powers(double x, int n) {
    double *p = malloc(n * sizeof *p);
    double v = 1.0;
    for (int i = 0; i < n; i++) {
        v *= x;
        p[i] = sin(v);
    }
    return p;
}

__attribute__((noinline)) double total(const double *p, int n) {
    double s = 0;
    for (int i = 0; i < n; i++) s += p[i];
    return s;
}

double cached[2];
__attribute__((noinline)) double *into_global(double x) {
    cached[1] = exp(x);
    return &cached[1];
}

double f_box(double x) {
    double *m = square_box(x);
    double r = *m * x;
    free(m);
    return r;
}

double f_powers(double x) {
    double *p = powers(x, 4);
    double r = total(p, 4);
    free(p);
    return r;
}

double f_global(double x) { return *into_global(x) * 2.0; }

int main(void) {
    const double xs[] = {0.7, -0.4};
    for (int i = 0; i < 2; i++) {
        double x = xs[i];
        printf("grad box@%g %.17g %.17g\n", x, __enzyme_autodiff((void *)f_box, x), 3 * x * x);
        double ref = cos(x) + 2 * x * cos(x * x) + 3 * x * x * cos(x * x * x) + 4 * x * x * x * cos(x * x * x * x);
        printf("grad powers@%g %.17g %.17g\n", x, __enzyme_autodiff((void *)f_powers, x), ref);
        printf("grad global@%g %.17g %.17g\n", x, __enzyme_autodiff((void *)f_global, x), 2 * exp(x));
        printf("grad global_again@%g %.17g %.17g\n", x, __enzyme_autodiff((void *)f_global, x), 2 * exp(x));
    }
    return 0;
}
