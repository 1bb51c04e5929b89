// Diagnostic: inline assembly on the active path (reverse mode, or forward mode with
// -DFORWARD). It is a call of an asm string, not an indirect call: the message must
// say so and tell how to get around it.
#include <stdio.h>

double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

double f(double x) {
    double y;
    __asm__("movsd %1, %0" : "=x"(y) : "x"(x)); /* DIAG-LINE */
    return y * x;
}

int main(void) {
#ifdef FORWARD
    printf("%g\n", __enzyme_fwddiff((void *)f, 1.5, 1.0));
#else
    printf("%g\n", __enzyme_autodiff((void *)f, 1.5));
#endif
    return 0;
}
