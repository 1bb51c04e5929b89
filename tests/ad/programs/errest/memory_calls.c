// __enzyme_error_estimate through memory and calls: pointer arguments are followed by
// memory holding their values' errors (the result's error is written there), a loop
// accumulates through a phi, a noinline callee gets an error derivative of its own,
// and fma() is one operation (one rounding, three partials).
// tol: rel=1e-12 abs=0
// grads: 12
#include <stdio.h>
#include "errest.h"

void __enzyme_error_estimate(void *, ...);
double __enzyme_error_estimate_r(void *, ...);
extern int enzyme_const;

enum { N = 5 };

void axpy(double a, const double *x, double *y, int n) {
    for (int i = 0; i < n; i++) {
        double t = a * x[i];
        y[i] = y[i] + t;
    }
}

double dot(const double *u, const double *v, int n) {
    double s = 0.0;
    for (int i = 0; i < n; i++) {
        double p = u[i] * v[i];
        s = s + p;
    }
    return s;
}

__attribute__((noinline)) double square(double x) { return x * x; }

double hyp(double x, double y) {
    double q = square(x) + square(y);
    return sqrt(q);
}

double fused(double x, double y, double z) { return fma(x, y, z); }

int main(void) {
    double x[N] = {1.5, -2.25, 1e3, 7e-4, 3.0};
    double ex[N] = {1e-12, 0.0, 1e-9, 1e-20, 4e-16};
    double y[N] = {-2.0, 0.5, 1e3, -1e-6, 1.0};
    double ey[N] = {0.0, 1e-14, 2e-9, 0.0, 1e-16};
    double y0[N], ey0[N];
    for (int i = 0; i < N; i++) y0[i] = y[i], ey0[i] = ey[i];

    double a = 0.75;
    __enzyme_error_estimate((void *)axpy, enzyme_const, a, x, ex, y, ey, enzyme_const, N);
    for (int i = 0; i < N; i++) {
        double t = a * x[i], r = y0[i] + t;
        double et = op_error(t, through(a, ex[i], x[i], t));
        double ref = op_error(r, through(1, ey0[i], y0[i], r) + through(1, et, t, r));
        printf("grad axpy_y%d %.17g %.17g\n", i, ey[i], ref);
    }

    double s = 0.0, es = 0.0;
    for (int i = 0; i < N; i++) {
        double p = x[i] * y0[i], s1 = s + p;
        double ep = op_error(p, through(y0[i], ex[i], x[i], p) + through(x[i], ey0[i], y0[i], p));
        es = op_error(s1, through(1, es, s, s1) + through(1, ep, p, s1));
        s = s1;
    }
    printf("grad dot %.17g %.17g\n", __enzyme_error_estimate_r((void *)dot, x, ex, y0, ey0, enzyme_const, N), es);

    for (int k = 0; k < 3; k++) {
        double u = x[k + 1], v = y0[k], eu = 1e-13 * (k + 1), ev = ex[k];
        double su = u * u, sv = v * v, q = su + sv, h = sqrt(q);
        double esu = op_error(su, 2 * through(u, eu, u, su)), esv = op_error(sv, 2 * through(v, ev, v, sv));
        double eq = op_error(q, through(1, esu, su, q) + through(1, esv, sv, q));
        double ref = op_error(h, through(0.5 / h, eq, q, h));
        printf("grad hyp@%d %.17g %.17g\n", k, __enzyme_error_estimate_r((void *)hyp, u, eu, v, ev), ref);

        double w = x[k], z = y0[k + 2], ew = ey0[k + 1], ez = ex[k + 2];
        double f = fma(u, w, z);
        ref = op_error(f, through(w, eu, u, f) + through(u, ew, w, f) + through(1, ez, z, f));
        printf("grad fma@%d %.17g %.17g\n", k, __enzyme_error_estimate_r((void *)fused, u, eu, w, ew, z, ez), ref);
    }
    return 0;
}
