// Split reverse mode: tape = __enzyme_augmentfwd(f, ...) runs the forward pass,
// __enzyme_reverse(f, ..., tape) the reverse pass later. Between the two the caller
// overwrites the input and output arrays (as an optimizer step would): the reverse
// must use the values the forward pass saw, kept in the tape. f has loops and a
// data-dependent branch; gradients against the analytic ones at the original point.
// tol: rel=1e-12 abs=1e-14
// grads: 4
#include <math.h>
#include <stdio.h>

void *__enzyme_augmentfwd(void *, ...);
void __enzyme_reverse(void *, ...);
extern int enzyme_dup, enzyme_const;

void f(const double *x, double *y, int n) {
    for (int i = 0; i < n; i++) {
        double v = x[i] * x[(i + 1) % n];
        y[i] = v > 0 ? sin(v) : v * v;
    }
}

int main(void) {
    enum { N = 4 };
    double x[N] = {0.5, -1.2, 0.8, 1.5}, x0[N], y[N], dx[N] = {0}, dy[N] = {1, 2, 3, 4};
    for (int i = 0; i < N; i++) x0[i] = x[i];
    void *tape = __enzyme_augmentfwd((void *)f, enzyme_dup, x, dx, enzyme_dup, y, dy, enzyme_const, N);
    for (int i = 0; i < N; i++) {  /* the caller moves on before the reverse pass */
        x[i] = 100.0 + i;
        y[i] = -7.0;
    }
    __enzyme_reverse((void *)f, enzyme_dup, x, dx, enzyme_dup, y, dy, enzyme_const, N, tape);
    double w[N] = {1, 2, 3, 4}, ex[N] = {0};
    for (int i = 0; i < N; i++) {
        int j = (i + 1) % N;
        double v = x0[i] * x0[j];
        double dv = v > 0 ? cos(v) : 2 * v;
        ex[i] += w[i] * dv * x0[j];
        ex[j] += w[i] * dv * x0[i];
    }
    for (int i = 0; i < N; i++) printf("grad dx[%d] %.17g %.17g\n", i, dx[i], ex[i]);
    return 0;
}
