// Diagnostic: the differentiated function writes an active value into a global that
// has no shadow (no !enzyme_shadow, not registered inactive), built with
// --enzc-no-auto-shadow (enzc makes no shadow of its own): a compile-time error
// saying the global needs a shadow.
#include <stdio.h>

double __enzyme_autodiff(void *, ...);

double state = 1.0;

double step(double x) {
    state = state * x + 1.0; /* DIAG-LINE */
    return state * state;
}

int main(void) {
    printf("%g\n", __enzyme_autodiff((void *)step, 0.5));
    return 0;
}
