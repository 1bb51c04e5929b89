// malloc and free inside the differentiated function: a heap scratch buffer holds
// active values (its shadow must be allocated, and freed only after the reverse pass).
// tol: rel=1e-12 abs=1e-14
// grads: 6
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);

double smooth(const double *x, int n) {
    double *buf = malloc(n * sizeof *buf);
    for (int i = 0; i < n; i++) buf[i] = tanh(x[i]);
    double s = 0;
    for (int i = 1; i < n; i++) s += buf[i] * buf[i - 1];
    free(buf);
    return s;
}

int main(void) {
    enum { N = 6 };
    double x[N], dx[N] = {0}, t[N];
    for (int i = 0; i < N; i++) { x[i] = 0.4 * i - 1.0; t[i] = tanh(x[i]); }
    __enzyme_autodiff((void *)smooth, enzyme_dup, x, dx, enzyme_const, N);
    for (int i = 0; i < N; i++) {
        double nb = (i > 0 ? t[i - 1] : 0) + (i < N - 1 ? t[i + 1] : 0);
        printf("grad dx[%d] %.17g %.17g\n", i, dx[i], (1 - t[i] * t[i]) * nb);
    }
    return 0;
}
