// A noinline helper that overwrites its array argument in place, called repeatedly:
// the reverse pass needs the values from before each overwrite.
// tol: rel=1e-12 abs=1e-13
// grads: 5
#include <math.h>
#include <stdio.h>

extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);

__attribute__((noinline)) void step(double *x, int n) {
    for (int i = 0; i < n; i++) x[i] = x[i] * x[i] * 0.5 + sin(x[i]);
}

double run(double *x, int n, int steps) {
    for (int k = 0; k < steps; k++) step(x, n);
    double s = 0;
    for (int i = 0; i < n; i++) s += x[i];
    return s;
}

int main(void) {
    enum { N = 5, STEPS = 3 };
    double x[N], x0[N], dx[N] = {0};
    for (int i = 0; i < N; i++) x0[i] = x[i] = 0.2 * i - 0.3;
    __enzyme_autodiff((void *)run, enzyme_dup, x, dx, enzyme_const, N, enzyme_const, STEPS);
    for (int i = 0; i < N; i++) {
        double v = x0[i], d = 1.0;
        for (int k = 0; k < STEPS; k++) { d *= v + cos(v); v = v * v * 0.5 + sin(v); }
        printf("grad dx[%d] %.17g %.17g\n", i, dx[i], d);
    }
    return 0;
}
