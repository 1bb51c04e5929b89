// noinline functions writing results through pointer arguments, called in a loop:
// sincos-like outputs and an accumulate-into helper.
// tol: rel=1e-12 abs=1e-14
// grads: 6
#include <math.h>
#include <stdio.h>

extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);

__attribute__((noinline)) void polar(double r, double t, double *x, double *y) {
    *x = r * cos(t);
    *y = r * sin(t);
}

__attribute__((noinline)) void accumulate(double *acc, double v, double w) { *acc += v * w; }

double area(const double *r, const double *t, int n) {
    double acc = 0;
    for (int i = 0; i < n; i++) {
        double x, y;
        polar(r[i], t[i], &x, &y);
        accumulate(&acc, x, y);
    }
    return acc;
}

int main(void) {
    enum { N = 3 };
    double r[N] = {1.0, 2.0, 0.5}, t[N] = {0.3, -1.0, 2.0}, dr[N] = {0}, dt[N] = {0};
    __enzyme_autodiff((void *)area, enzyme_dup, r, dr, enzyme_dup, t, dt, enzyme_const, N);
    /* acc = sum r^2 cos t sin t = sum r^2 sin(2t)/2 */
    for (int i = 0; i < N; i++) {
        printf("grad dr[%d] %.17g %.17g\n", i, dr[i], r[i] * sin(2 * t[i]));
        printf("grad dt[%d] %.17g %.17g\n", i, dt[i], r[i] * r[i] * cos(2 * t[i]));
    }
    return 0;
}
