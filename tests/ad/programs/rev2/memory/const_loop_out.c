// The ADBench shape: const arrays read in a loop, a malloc'd temporary written in
// it, the result written once through an out-pointer at the end. The reverse pass
// reloads w and x instead of caching them (test_memory_facts checks the cache
// report): the temporary is a fresh block (no argument points into it) and the
// final store is undone and replayed. The primal result must survive the gradient.
// tol: rel=1e-12 abs=1e-14
// grads: 13
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);

void objective(const double *w, const double *x, int n, double *out) {
    double *t = malloc(n * sizeof *t);
    double s = 0;
    for (int i = 0; i < n; i++) {
        double a = w[i] * x[i];
        t[i] = a;
        s += a * w[i];
    }
    double u = 0;
    for (int i = 0; i < n; i++) u += t[i];
    *out = s + 3 * u;
    free(t);
}

int main(void) {
    enum { N = 6 };
    double w[N], x[N], dw[N] = {0}, dx[N] = {0};
    for (int i = 0; i < N; i++) { w[i] = 0.3 * i - 0.7; x[i] = 1.1 - 0.25 * i; }
    double out = 0, dout = 1;
    __enzyme_autodiff((void *)objective, enzyme_dup, w, dw, enzyme_dup, x, dx, enzyme_const, N,
                      enzyme_dup, &out, &dout);
    double expect = 0;
    for (int i = 0; i < N; i++) {  /* f = sum w^2 x + 3 w x */
        printf("grad dw[%d] %.17g %.17g\n", i, dw[i], 2 * w[i] * x[i] + 3 * x[i]);
        printf("grad dx[%d] %.17g %.17g\n", i, dx[i], w[i] * w[i] + 3 * w[i]);
        expect += w[i] * w[i] * x[i] + 3 * w[i] * x[i];
    }
    printf("grad out %.17g %.17g\n", out, expect);
    return 0;
}
