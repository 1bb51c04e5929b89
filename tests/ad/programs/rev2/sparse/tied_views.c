// __enzyme_todense views handed to __enzyme_autodiff: the dense x of a chain energy
// is a view of fewer parameters (x[j] = p[map[j]], entries tied together), and its
// shadow is a view of the gradient storage (dx[j] += a adds to dp[map[j]]). The views
// are lowered after AD, inside the derivative, so the reverse pass's `dx[j] += a`
// becomes tied_load then tied_store and the gradient of tied entries adds up.
// Reference: central finite differences on p.
// tol: rel=1e-6 abs=1e-8
// grads: 4
#include <math.h>
#include <stdint.h>
#include <stdio.h>

extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);
double *__enzyme_todense(void *, void *, ...);

enum { N = 9, P = 4 };

static double tied_load(int64_t offset, double *p, const int *map) {
    return p[map[offset / 8]];
}

static void tied_store(double v, int64_t offset, double *p, const int *map) {
    p[map[offset / 8]] = v;
}

/* dense code: springs of rest length 1 between neighbours, written to *out */
static void chain(const double *x, int n, double *out) {
    double e = 0.0;
    for (int i = 0; i + 1 < n; i++) {
        double d = sqrt((x[i + 1] - x[i]) * (x[i + 1] - x[i]) + 0.25) - 1.0;
        e += d * d;
    }
    *out = e;
}

static double primal(const double *p, const int *map) {
    double x[N], e;
    for (int j = 0; j < N; j++)
        x[j] = p[map[j]];
    chain(x, N, &e);
    return e;
}

int main(void) {
    const int map[N] = {0, 1, 2, 3, 2, 1, 0, 3, 3};
    double p[P] = {0.2, 1.7, -0.4, 3.1}, dp[P] = {0};
    double e = 0.0, de = 1.0;
    double *x = __enzyme_todense((void *)tied_load, (void *)tied_store, p, map);
    double *dx = __enzyme_todense((void *)tied_load, (void *)tied_store, dp, map);
    __enzyme_autodiff((void *)chain, enzyme_dup, x, dx, enzyme_const, N, enzyme_dup, &e, &de);
    for (int k = 0; k < P; k++) {
        double h = 1e-6 * (1.0 + fabs(p[k]));
        double save = p[k];
        p[k] = save + h;
        double up = primal(p, map);
        p[k] = save - h;
        double down = primal(p, map);
        p[k] = save;
        printf("grad p[%d] %.17g %.17g\n", k, dp[k], (up - down) / (2 * h));
    }
    return 0;
}
