// A loop whose value comes from a branch (a phi, or a select at -O2) and feeds a
// pure chain the reverse pass needs: t is cached, t / (1 + t*t) and the narrowed
// float y = (float)sin(x) (cached instead of the double it comes from) are used from
// the cache and recomputation. Analytic reference.
// tol: rel=1e-5 abs=1e-9
// grads: 6
#include <math.h>
#include <stdio.h>

extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);

enum { N = 6 };

double g(const double *x, int n) {
    double acc = 0;
    for (int i = 0; i < n; i++) {
        double t;
        if (x[i] > 0.2)
            t = exp(x[i]);
        else
            t = sin(x[i]) + 2.0;
        double u = t / (1.0 + t * t);
        float y = (float)sin(x[i] * x[i]);
        acc += u * x[i] + (double)(y * y);
    }
    return acc;
}

/* d/dx of one term, from the same float rounding of y as the primal. */
static double dterm(double x) {
    double t = x > 0.2 ? exp(x) : sin(x) + 2.0;
    double dt = x > 0.2 ? exp(x) : cos(x);
    double u = t / (1.0 + t * t);
    double du = dt * (1.0 - t * t) / ((1.0 + t * t) * (1.0 + t * t));
    float y = (float)sin(x * x);
    return du * x + u + 2.0 * (double)y * cos(x * x) * 2.0 * x;
}

int main(void) {
    volatile int vn = N;
    int n = vn;
    double x[N], dx[N] = {0};
    for (int i = 0; i < N; i++) x[i] = 0.8 * sin(1.7 * i + 0.4);
    __enzyme_autodiff((void *)g, enzyme_dup, x, dx, enzyme_const, n);
    for (int i = 0; i < N; i++) printf("grad dx[%d] %.17g %.17g\n", i, dx[i], dterm(x[i]));
    return 0;
}
