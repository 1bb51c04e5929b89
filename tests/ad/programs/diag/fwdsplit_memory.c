// Diagnostic: __enzyme_fwdsplit of a function that writes the caller's memory: the
// split derivative must not repeat the primal's writes and would need a tape for the
// values they overwrite, which enzc's forward derivatives do not read.
#include <stdio.h>

double __enzyme_fwdsplit(void *, ...);

double scale_in_place(double *v, double a) {
    v[0] = v[0] * a;
    return v[0];
}

int main(void) {
    double v[1] = {2.0}, dv[1] = {1.0};
    double d = __enzyme_fwdsplit((void *)scale_in_place, v, dv, 3.0, 0.0, (void *)0); /* DIAG-LINE */
    printf("%g\n", d);
    return 0;
}
