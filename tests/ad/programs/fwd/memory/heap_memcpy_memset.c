// Forward mode with heap memory inside the function: a malloc'd buffer filled by
// memset and memcpy from the input, updated in place, a realloc that grows it, and
// free. The shadow blocks follow (memcpy copies the tangents, memset zeroes them).
// tol: rel=1e-12 abs=1e-14
// grads: 3
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

double __enzyme_fwddiff(void *, ...);
extern int enzyme_dup, enzyme_const;

double f(const double *x, int n) {
    double *buf = malloc(n * sizeof(double));
    memset(buf, 0, n * sizeof(double));
    memcpy(buf, x, n * sizeof(double));
    for (int i = 0; i < n; i++) buf[i] = buf[i] * buf[i] + sin(buf[i]);
    buf = realloc(buf, 2 * n * sizeof(double));
    memcpy(buf + n, buf, n * sizeof(double));
    double s = 0;
    for (int i = 0; i < 2 * n; i++) s += buf[i] * (i + 1);
    free(buf);
    return s;
}

int main(void) {
    enum { N = 3 };
    double x[N] = {0.4, -1.2, 0.9};
    for (int k = 0; k < N; k++) {
        double dx[N] = {0};
        dx[k] = 1.0;
        double d = __enzyme_fwddiff((void *)f, enzyme_dup, x, dx, enzyme_const, N);
        double expect = (2 * x[k] + cos(x[k])) * ((k + 1) + (k + 1 + N));
        printf("grad df/dx[%d] %.17g %.17g\n", k, d, expect);
    }
    return 0;
}
