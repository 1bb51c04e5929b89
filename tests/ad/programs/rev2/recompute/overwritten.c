// Memory overwritten in nested loops: each pass rewrites x[i] from its old value
// v, a sigmoid of w[i] v (exp cached, the rest recomputed), cheap intrinsics (fma,
// fabs, fmax: recomputed) and the already rewritten x[i-1]. The loads of x are
// cached (the memory changes), the loads of w are recomputed (never written).
// Reference: central differences of the primal, h = 1e-6 relative.
// tol: rel=1e-6 abs=1e-9
// grads: 10
#include <math.h>
#include <stdio.h>
#include <string.h>

extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);

enum { N = 5, P = 3 };

static void step(double *x, const double *w, int n, int passes) {
    for (int p = 0; p < passes; p++)
        for (int i = 0; i < n; i++) {
            double v = x[i];
            double e = exp(-w[i] * v);
            double s = 1.0 / (1.0 + e);
            double prev = i > 0 ? x[i - 1] : 0.0;
            x[i] = fma(v, s, fmax(fabs(v), 0.1) * 0.25) + 0.5 * prev * s;
        }
}

double loss(double *x, const double *w, int n, int passes) {
    step(x, w, n, passes);
    double r = 0;
    for (int i = 0; i < n; i++) r += x[i] * x[i];
    return r;
}

static double primal(const double *x0, const double *w, int n, int passes) {
    double x[N];
    memcpy(x, x0, sizeof x);
    return loss(x, w, n, passes);
}

int main(void) {
    volatile int vn = N, vp = P;
    int n = vn, passes = vp;
    double x0[N], x[N], w[N], dx[N] = {0}, dw[N] = {0};
    for (int i = 0; i < N; i++) {
        x0[i] = 0.9 * sin(1.3 * i + 0.5);
        w[i] = 0.6 * cos(0.7 * i + 0.1);
    }
    memcpy(x, x0, sizeof x);
    __enzyme_autodiff((void *)loss, enzyme_dup, x, dx, enzyme_dup, w, dw, enzyme_const, n, enzyme_const, passes);
    for (int k = 0; k < 2 * N; k++) {
        double *v = k < N ? &x0[k] : &w[k - N];
        double save = *v, h = 1e-6 * fmax(1.0, fabs(save));
        *v = save + h;
        double fp = primal(x0, w, n, passes);
        *v = save - h;
        double fm = primal(x0, w, n, passes);
        *v = save;
        if (k < N)
            printf("grad dx[%d] %.17g %.17g\n", k, dx[k], (fp - fm) / (2 * h));
        else
            printf("grad dw[%d] %.17g %.17g\n", k - N, dw[k - N], (fp - fm) / (2 * h));
    }
    return 0;
}
