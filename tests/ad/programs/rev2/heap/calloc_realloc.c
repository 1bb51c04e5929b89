// calloc and a growing realloc inside the differentiated function: values written
// before the realloc must keep their shadows after it.
// tol: rel=1e-12 abs=1e-14
// grads: 7
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);

double grow(const double *x, int n) {
    int cap = 2, len = 0;
    double *acc = calloc(cap, sizeof *acc);
    for (int i = 0; i < n; i++) {
        if (len == cap) {
            cap *= 2;
            acc = realloc(acc, cap * sizeof *acc);
        }
        acc[len] = x[i] * x[i] + (len > 0 ? acc[len - 1] : 0.0);
        len++;
    }
    double s = 0;
    for (int i = 0; i < len; i++) s += sqrt(acc[i] + 1.0);
    free(acc);
    return s;
}

int main(void) {
    enum { N = 7 };
    double x[N], dx[N] = {0}, a[N];
    for (int i = 0; i < N; i++) x[i] = 0.5 - 0.2 * i;
    __enzyme_autodiff((void *)grow, enzyme_dup, x, dx, enzyme_const, N);
    /* acc_i = sum_{j<=i} x_j^2 ; s = sum_i sqrt(acc_i + 1) */
    for (int i = 0; i < N; i++) a[i] = x[i] * x[i] + (i ? a[i - 1] : 0);
    for (int j = 0; j < N; j++) {
        double r = 0;
        for (int i = j; i < N; i++) r += 0.5 / sqrt(a[i] + 1);
        printf("grad dx[%d] %.17g %.17g\n", j, dx[j], r * 2 * x[j]);
    }
    return 0;
}
