// Diagnostic: an Enzyme clang-plugin attribute enzc does not support. Plain clang
// ignores it (a warning), so the function would be differentiated as if unmarked;
// enzcc must stop at the attribute instead. (enzyme_inactive and
// enzyme_function_like are supported: rev2/custom/plugin_attributes.c.)
#include <stdio.h>

double __enzyme_autodiff(void *, ...);

/* a comment naming __attribute__((enzyme_nofree)) is not an error */
__attribute__((noinline, enzyme_inactive_noblock)) double log_scale(double x) { return 2 * x; } /* DIAG-LINE */

double f(double x) { return x + log_scale(x); }

int main(void) {
    printf("%g\n", __enzyme_autodiff((void *)f, 1.0));
    return 0;
}
