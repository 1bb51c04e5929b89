// Diagnostic: enzyme_width is forward mode's (several tangents at once); an error
// estimate has one error per value, so __enzyme_error_estimate refuses it.
#include <stdio.h>

double __enzyme_error_estimate(void *, ...);
extern int enzyme_width;

double sq(double x) { return x * x; }

int main(void) {
    double e = __enzyme_error_estimate((void *)sq, enzyme_width, 2, 0.5, 1e-16, 0.0); /* DIAG-LINE */
    printf("%g\n", e);
    return 0;
}
