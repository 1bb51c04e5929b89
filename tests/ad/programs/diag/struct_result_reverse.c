// Diagnostic: reverse mode of a function whose struct result comes back through a
// hidden sret pointer. There is no seed for that result, so the build must stop at
// the entry call and say how to pass the result instead.
#include <stdio.h>

typedef struct { double a, b, c; } V3;
double __enzyme_autodiff(void *, ...);

V3 triple(double x) {
    V3 r = {x, x * x, x * x * x};
    return r;
}

int main(void) {
    printf("%g\n", __enzyme_autodiff((void *)triple, 0.5)); /* DIAG-LINE */
    return 0;
}
