// Diagnostic: __enzyme_error_estimate through a call to a function without a body
// (and without a rule): no error can be estimated for it, a compile-time error names it.
#include <stdio.h>

double __enzyme_error_estimate(void *, ...);
double opaque_model(double);

double g(double x) { return 2.0 * opaque_model(x); } /* DIAG-LINE */

int main(void) {
    printf("%g\n", __enzyme_error_estimate((void *)g, 0.5, 1e-16));
    return 0;
}
