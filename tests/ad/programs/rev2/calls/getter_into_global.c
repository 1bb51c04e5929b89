// A noinline getter that takes only an index and returns a pointer into a global
// array of doubles (which gets enzc's own shadow): what the caller reads through it
// carries derivatives, so the returned pointer needs a shadow although no argument
// of the call has one (was: the reads were dropped, a zero gradient). Also a getter
// that returns another getter's result.
// tol: rel=1e-12 abs=1e-14
// grads: 6
#include <math.h>
#include <stdio.h>

double __enzyme_autodiff(void *, ...);
extern int enzyme_dup, enzyme_const;

double store[8];
__attribute__((noinline)) double *slot(int i) { return &store[i]; }
__attribute__((noinline)) double *slot_twice(int i) { return slot(i) + 1; }

double f(const double *x, int n) {
    for (int i = 0; i < n; i++) store[i] = x[i] * x[i];
    double s = 0;
    for (int i = 0; i < n; i++) s += *slot(i);
    for (int i = 0; i + 1 < n; i++) s += sin(*slot_twice(i));
    return s;
}

int main(void) {
    double x[3] = {0.5, -1.25, 0.75}, dx[3] = {0, 0, 0};
    __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_const, 3);
    for (int i = 0; i < 3; i++) {
        double ref = 2 * x[i] + (i >= 1 ? cos(x[i] * x[i]) * 2 * x[i] : 0.0);
        printf("grad dx%d %.17g %.17g\n", i, dx[i], ref);
    }
    double y[3] = {1.5, 0.25, -0.5}, dy[3] = {0, 0, 0};
    __enzyme_autodiff((void *)f, enzyme_dup, y, dy, enzyme_const, 3);
    for (int i = 0; i < 3; i++) {
        double ref = 2 * y[i] + (i >= 1 ? cos(y[i] * y[i]) * 2 * y[i] : 0.0);
        printf("grad dy%d %.17g %.17g\n", i, dy[i], ref);
    }
    return 0;
}
