// Diagnostic: Enzyme's __enzyme_iter (iteration counts that grow with the derivative
// order) is not implemented: a compile-time error naming it, not an undefined
// reference from the linker.
#include <stdint.h>
#include <stdio.h>

double __enzyme_autodiff(void *, ...);
uint64_t __enzyme_iter(uint64_t, uint64_t);

double series(double x) {
    double s = 0, term = 1;
    uint64_t n = __enzyme_iter(8, 1); /* DIAG-LINE */
    for (uint64_t i = 1; i <= n; i++) {
        term *= x / (double)i;
        s += term;
    }
    return s;
}

int main(void) {
    printf("%g\n", __enzyme_autodiff((void *)series, 0.5));
    return 0;
}
