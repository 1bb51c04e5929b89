// Diagnostic: Enzyme's clang-plugin attribute enzyme_inactive. Plain clang ignores it
// (a warning), so the function would be differentiated: a gradient of 3 instead of the
// 1 the user asked for. enzcc must stop and name the C registration to use instead.
#include <stdio.h>

double __enzyme_autodiff(void *, ...);

/* a comment naming __attribute__((enzyme_nofree)) is not an error */
__attribute__((enzyme_inactive)) double log_scale(double x) { return 2 * x; } /* DIAG-LINE */

double f(double x) { return x + log_scale(x); }

int main(void) {
    printf("%g\n", __enzyme_autodiff((void *)f, 1.0));
    return 0;
}
