// Diagnostic: forward mode declared as a C++ template (so the call is to a mangled
// name): the error must name __enzyme_fwddiff, not only its mangled spelling.
#include <stdio.h>

template <typename T> extern double __enzyme_fwddiff(void *, T, T);

double cube(double x) { return x * x * x; }

int main() {
    double d = __enzyme_fwddiff<double>((void *)cube, 2.0, 1.0); /* DIAG-LINE */
    printf("%g\n", d);
    return 0;
}
