// Sigmoid chains in nested loops: the reverse pass needs e = exp(..), 1 + e and the
// sigmoid s of every inner iteration and a = exp(0.3 x[i]) of every outer one; only
// e and a are cached (per inner / outer iteration), 1 + e, s and the products are
// recomputed from them in the reverse pass (`enzc.ad.recompute`).
// Reference: central differences of the primal, h = 1e-6 relative.
// tol: rel=1e-6 abs=1e-9
// grads: 9
#include <math.h>
#include <stdio.h>

extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);

enum { N = 4, M = 5 };

double f(const double *x, const double *w, int n, int m) {
    double acc = 0;
    for (int i = 0; i < n; i++) {
        double a = exp(0.3 * x[i]);
        for (int j = 0; j < m; j++) {
            double e = exp(-(a * w[j] + x[(i + j) % n]));
            double s = 1.0 / (1.0 + e);
            acc += s * s * a;
        }
    }
    return acc;
}

int main(void) {
    volatile int vn = N, vm = M;
    int n = vn, m = vm;
    double x[N], w[M], dx[N] = {0}, dw[M] = {0};
    for (int i = 0; i < N; i++) x[i] = 0.7 * sin(1.1 * i + 0.3);
    for (int j = 0; j < M; j++) w[j] = 0.5 * cos(0.9 * j + 0.2);
    __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_dup, w, dw, enzyme_const, n, enzyme_const, m);
    for (int k = 0; k < N + M; k++) {
        double *v = k < N ? &x[k] : &w[k - N];
        double save = *v, h = 1e-6 * fmax(1.0, fabs(save));
        *v = save + h;
        double fp = f(x, w, n, m);
        *v = save - h;
        double fm = f(x, w, n, m);
        *v = save;
        if (k < N)
            printf("grad dx[%d] %.17g %.17g\n", k, dx[k], (fp - fm) / (2 * h));
        else
            printf("grad dw[%d] %.17g %.17g\n", k - N, dw[k - N], (fp - fm) / (2 * h));
    }
    return 0;
}
