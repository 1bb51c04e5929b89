// Variable-length arrays: one per iteration of a loop (each iteration's array
// reuses the previous one's stack once its scope ends), and one in a noinline
// helper called in that loop (whose forward frame is gone when its reverse runs).
// The reverse pass needs every iteration's array and shadow: enzc keeps dynamic
// stack memory in an arena of the derivative until its reverse pass is done.
// tol: rel=1e-6 abs=1e-8
// grads: 4
#include <math.h>
#include <stdio.h>

void __enzyme_autodiff(void *, ...);
extern int enzyme_dup, enzyme_const;

__attribute__((noinline)) double smooth(const double *t, int n) {
    double buf[n];
    for (int i = 0; i < n; i++) buf[i] = sin(t[i]) * t[(i + 1) % n];
    double s = 0;
    for (int i = 0; i < n; i++) s += buf[i] * buf[n - 1 - i];
    return s;
}

double f(const double *x, int n, int reps) {
    double acc = 0;
    for (int r = 0; r < reps; r++) {
        double tmp[n];
        for (int i = 0; i < n; i++) tmp[i] = x[i] * (r + 1) + 0.1 * r;
        acc += smooth(tmp, n) + tmp[0] * tmp[n - 1];
    }
    return acc;
}

int main(void) {
    enum { N = 4 };
    double x[N] = {0.5, -1.0, 2.0, 0.3}, dx[N] = {0};
    __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_const, N, enzyme_const, 3);
    for (int i = 0; i < N; i++) {
        double h = 1e-6, o = x[i];
        x[i] = o + h;
        double fp = f(x, N, 3);
        x[i] = o - h;
        double fm = f(x, N, 3);
        x[i] = o;
        printf("grad dx[%d] %.17g %.17g\n", i, dx[i], (fp - fm) / (2 * h));
    }
    return 0;
}
