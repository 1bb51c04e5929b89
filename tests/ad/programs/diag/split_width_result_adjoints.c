// Diagnostic: with enzyme_width N, __enzyme_reverse takes N adjoints of the result
// (one per lane) before the tape; one alone would leave the other lanes unseeded.
#include <stdio.h>

extern int enzyme_width, enzyme_dup;
void *__enzyme_augmentfwd(void *, ...);
void __enzyme_reverse(void *, ...);

double square(double *x) { return x[0] * x[0]; }

int main(void) {
    double x = 0.5, d0 = 0, d1 = 0;
    void *tape = __enzyme_augmentfwd((void *)square, enzyme_width, 2, enzyme_dup, &x, &d0, &d1);
    __enzyme_reverse((void *)square, enzyme_width, 2, enzyme_dup, &x, &d0, &d1, 1.0, tape); /* DIAG-LINE */
    printf("%g %g\n", d0, d1);
    return 0;
}
