// Diagnostic: the argument marker is chosen at run time. Markers are read at compile
// time, so the call cannot be lowered: the message must say that, not report a type
// mismatch of the marker's int with the parameter.
#include <stdio.h>
#include <enzyme/enzyme.h>

double f(double x, double y) { return x * y; }

int main(int argc, char **argv) {
    (void)argv;
    int which = argc > 1 ? enzyme_const : enzyme_out;
    double d = __enzyme_autodiff((void *)f, which, 1.5, 2.0); /* DIAG-LINE */
    printf("%g\n", d);
    return 0;
}
