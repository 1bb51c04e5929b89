// Diagnostic: __enzyme_fwdsplit given the tape of __enzyme_augmentfwd. enzc's
// forward derivatives read no tapes (its tapes are made for the reverse pass), so
// it refuses instead of ignoring values the tape was meant to supply.
#include <math.h>
#include <stdio.h>

void *__enzyme_augmentfwd(void *, ...);
double __enzyme_fwdsplit(void *, ...);

double f(double x) { return exp(x) * x; }

int main(void) {
    double x = 0.5;
    void *tape = __enzyme_augmentfwd((void *)f, x);
    double dx = __enzyme_fwdsplit((void *)f, x, 1.0, tape); /* DIAG-LINE */
    printf("%g\n", dx);
    return 0;
}
