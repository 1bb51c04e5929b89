// Diagnostic: Enzyme's __enzyme_error_estimate (forward error analysis) is not
// implemented: a compile-time error naming it, not an undefined reference from the
// linker.
#include <stdio.h>

double __enzyme_error_estimate(void *, ...);

double square(double x) { return x * x; }

int main(void) {
    double e = __enzyme_error_estimate((void *)square, 0.5, 0.0); /* DIAG-LINE */
    printf("%g\n", e);
    return 0;
}
