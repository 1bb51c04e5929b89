// Diagnostic: qsort of active data (libc calls back into a comparator): the
// error names qsort and the hint says how to restructure the code.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

double __enzyme_autodiff(void *, ...);

static int by_value(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double spread(const double *x, int n) {
    double t[8];
    memcpy(t, x, sizeof(double) * n);
    qsort(t, n, sizeof(double), by_value); /* DIAG-LINE */
    return t[n - 1] - t[0];
}

int main(void) {
    double x[4] = {3, 1, 4, 2}, dx[4] = {0};
    __enzyme_autodiff((void *)spread, x, dx, 4);
    printf("%g\n", dx[0]);
    return 0;
}
