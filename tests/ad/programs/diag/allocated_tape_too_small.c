// Diagnostic: split mode with a caller-allocated tape (enzyme_allocated, n,
// enzyme_tape, buffer) too small for what enzc keeps there (a pointer to its tape).
#include <stdio.h>

void __enzyme_augmentfwd(void *, ...);
extern int enzyme_dup, enzyme_allocated, enzyme_tape;

void f(double *x) { x[0] = x[0] * x[0]; }

int main(void) {
    double x = 2, dx = 1;
    char tape[4];
    __enzyme_augmentfwd((void *)f, enzyme_dup, &x, &dx, enzyme_allocated, sizeof tape, enzyme_tape, tape); /* DIAG-LINE */
    printf("%g\n", x);
    return 0;
}
