// Functions that return one of their arguments (`return p;`), called from
// differentiated code and kept as calls: their augmented forward pass returns that
// argument and its shadow. Built also with --enzc-ad-before-opt
// (test_gradients_ad_before_opt), where nothing folds the calls away: the
// augmented function must return its own argument, not the one of the function it
// was cut from (the printed text looked right; the verifier saw the difference).
// tol: rel=1e-12 abs=1e-14
// grads: 3
#include <math.h>
#include <stdio.h>

extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);

__attribute__((noinline)) double same(double v) { return v; }
__attribute__((noinline)) const double *first(const double *p) { return p; }

double f(const double *x, int n) {
    double s = 0;
    for (int i = 0; i < n; i++) {
        const double *q = first(x + i);
        s += same(*q) * sin(*q);
    }
    return s;
}

int main(void) {
    double x[3] = {0.5, -1.2, 0.8}, dx[3] = {0};
    __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_const, 3);
    for (int i = 0; i < 3; i++) printf("grad dx[%d] %.17g %.17g\n", i, dx[i], sin(x[i]) + x[i] * cos(x[i]));
    return 0;
}
