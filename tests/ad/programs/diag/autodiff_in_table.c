// Diagnostic: __enzyme_autodiff stored in a global table of function pointers:
// only direct calls are replaced, so the build must stop here rather than at link.
#include <stdio.h>

double __enzyme_autodiff(void *, ...);
double f(double x) { return x * x; }

double (*grad_table[2])(void *, ...) = {__enzyme_autodiff, 0}; /* DIAG-LINE */

int main(int argc, char **argv) {
    (void)argv;
    printf("%g\n", grad_table[argc - 1]((void *)f, 1.5));
    return 0;
}
