// A temporary overwritten every iteration that the reverse pass needs:
// t = x[i]*x[i]; s += sin(t)*t -- t must be cached (or recomputed) per iteration.
// tol: rel=1e-12 abs=1e-14
// grads: 10
#include <math.h>
#include <stdio.h>

extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);

double f(const double *x, int n) {
    double s = 0, t;
    for (int i = 0; i < n; i++) {
        t = x[i] * x[i];
        s += sin(t) * t;
    }
    return s;
}

int main(void) {
    enum { N = 10 };
    double x[N], dx[N] = {0};
    for (int i = 0; i < N; i++) x[i] = 0.3 * i - 1.1;
    __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_const, N);
    for (int i = 0; i < N; i++) {
        double t = x[i] * x[i];
        printf("grad dx[%d] %.17g %.17g\n", i, dx[i], (cos(t) * t + sin(t)) * 2 * x[i]);
    }
    return 0;
}
