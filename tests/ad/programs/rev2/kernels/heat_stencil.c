// 1-D heat equation, explicit time stepping with two heap buffers whose pointers are
// swapped every step; gradient of the final energy with respect to the initial field.
// Reference: central differences of the primal, h = 1e-6 relative.
// tol: rel=1e-6 abs=1e-9
// grads: 8
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);

enum { N = 8, STEPS = 12 };

double heat(const double *u0, double alpha) {
    double *u = malloc(N * sizeof(double)), *v = malloc(N * sizeof(double));
    memcpy(u, u0, N * sizeof(double));
    for (int s = 0; s < STEPS; s++) {
        for (int i = 0; i < N; i++) {
            double l = u[(i + N - 1) % N], r = u[(i + 1) % N];
            v[i] = u[i] + alpha * (l - 2 * u[i] + r) + 0.01 * sin(u[i]);
        }
        double *t = u;
        u = v;
        v = t;
    }
    double e = 0;
    for (int i = 0; i < N; i++) e += u[i] * u[i] * (1 + 0.1 * i);
    free(u);
    free(v);
    return e;
}

int main(void) {
    double u0[N], du0[N] = {0}, alpha = 0.2;
    for (int i = 0; i < N; i++) u0[i] = exp(-0.5 * (i - 3.0) * (i - 3.0));
    __enzyme_autodiff((void *)heat, enzyme_dup, u0, du0, enzyme_const, alpha);
    for (int i = 0; i < N; i++) {
        double save = u0[i], h = 1e-6 * fmax(1.0, fabs(save));
        u0[i] = save + h;
        double fp = heat(u0, alpha);
        u0[i] = save - h;
        double fm = heat(u0, alpha);
        u0[i] = save;
        printf("grad du0[%d] %.17g %.17g\n", i, du0[i], (fp - fm) / (2 * h));
    }
    return 0;
}
