// posix_memalign (its block comes back through memory, in a loop: a fresh block
// per iteration) and aligned_alloc inside the differentiated function; their
// shadows get the same alignment (vector code may use aligned moves on them).
// Reference: analytic, f = sum_r sum_i (r+1) x_i^2 x_{i+1} + sum_i sin(x_i)^2.
// tol: rel=1e-12 abs=1e-14
// grads: 7
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

extern int enzyme_const;
double __enzyme_autodiff(void *, ...);

enum { N = 7 };

double f(const double *x, int n) {
    double s = 0;
    for (int r = 0; r < 3; r++) {
        double *tmp;
        if (posix_memalign((void **)&tmp, 64, sizeof(double) * n)) return -1;
        for (int i = 0; i < n; i++) tmp[i] = x[i] * x[i] * (r + 1);
        for (int i = 0; i < n; i++) s += tmp[i] * x[(i + 1) % n];
        free(tmp);
    }
    double *al = aligned_alloc(32, 32 * ((n * sizeof(double) + 31) / 32));
    for (int i = 0; i < n; i++) al[i] = sin(x[i]);
    for (int i = 0; i < n; i++) s += al[i] * al[i];
    free(al);
    return s;
}

int main(void) {
    double x[N] = {1, 2, 3, 4, 0.5, -1, 2.5}, dx[N] = {0};
    __enzyme_autodiff((void *)f, x, dx, enzyme_const, N);
    for (int i = 0; i < N; i++) {
        double prev = x[(i + N - 1) % N];
        double ref = 6 * (2 * x[i] * x[(i + 1) % N] + prev * prev) + 2 * sin(x[i]) * cos(x[i]);
        printf("grad dx[%d] %.17g %.17g\n", i, dx[i], ref);
    }
    return 0;
}
