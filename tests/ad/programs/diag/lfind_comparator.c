// Diagnostic: lfind over active data (libc calls back into a comparator and returns a
// pointer into the array): the error names lfind and the hint says how to restructure
// the code. (qsort, qsort_r and bsearch are differentiated: rev2/calls/qsort_sorted_data.c.)
#include <search.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

double __enzyme_autodiff(void *, ...);

static int same_sign(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x < 0) != (y < 0);
}

double first_negative(const double *x, int n) {
    double t[8], key = -1.0;
    size_t count = (size_t)n;
    memcpy(t, x, sizeof(double) * n);
    const double *hit = lfind(&key, t, &count, sizeof(double), same_sign); /* DIAG-LINE */
    return hit ? *hit * *hit : 0.0;
}

int main(void) {
    double x[4] = {3, 1, -4, 2}, dx[4] = {0};
    __enzyme_autodiff((void *)first_negative, x, dx, 4);
    printf("%g\n", dx[2]);
    return 0;
}
