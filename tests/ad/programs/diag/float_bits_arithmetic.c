// Diagnostic: the bits of an active double copied into an integer, changed by integer
// arithmetic (one ulp up: the next double, whose derivative is 1) and passed to a
// function that is not inlined. Integer arithmetic carries no adjoint, so
// differentiating on would give 0 instead of 1: the build must stop at the
// reinterpretation.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

double __enzyme_autodiff(void *, ...);

__attribute__((noinline)) unsigned long long *store_bits(unsigned long long bits) {
    unsigned long long *data = malloc(sizeof *data);
    *data = bits;
    return data;
}

double f(double x) {
    unsigned long long bits;
    memcpy(&bits, &x, sizeof bits); /* DIAG-LINE */
    double *p = (double *)store_bits(bits + 1);
    double y = *p;
    free(p);
    return y;
}

int main(void) {
    printf("%g\n", __enzyme_autodiff((void *)f, 2.0));
    return 0;
}
