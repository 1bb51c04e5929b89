// Diagnostic: enzyme_dupv passes one shadow buffer for every lane of a pointer; a
// double parameter has no such buffer (reverse mode: enzyme_out).
#include <stdio.h>

extern int enzyme_width, enzyme_dupv;
typedef struct { double d[2]; } Two;
Two __enzyme_autodiff(void *, ...);

double sq(double x) { return x * x; }

int main(void) {
    double dx[2] = {0, 0};
    Two g = __enzyme_autodiff((void *)sq, enzyme_width, 2, enzyme_dupv, 8, 0.5, dx); /* DIAG-LINE */
    printf("%g %g\n", g.d[0], g.d[1]);
    return 0;
}
