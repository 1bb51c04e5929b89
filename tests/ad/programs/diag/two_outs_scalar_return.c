// Diagnostic: two enzyme_out arguments, but __enzyme_autodiff declared to return one
// double. The derivatives do not fit in a double: the second one would be dropped
// silently, so the build must stop (a struct of two doubles is what C returns).
#include <stdio.h>

double __enzyme_autodiff(void *, ...);

double f(double x, double y) { return x * x * y; }

int main(void) {
    double d = __enzyme_autodiff((void *)f, 1.5, 2.0); /* DIAG-LINE */
    printf("%g\n", d);
    return 0;
}
