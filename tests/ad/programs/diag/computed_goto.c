// Diagnostic: a computed goto (GNU labels as values). The derivative is a copy of the
// function, but the label addresses still point into the user's function, so the
// build must stop at the goto rather than jump into the wrong function at run time.
#include <stdio.h>

double __enzyme_autodiff(void *, ...);

double pick(double x, int k) {
    static void *targets[] = {&&triple, &&square};
    goto *targets[k & 1]; /* DIAG-LINE */
triple:
    return x * 3;
square:
    return x * x;
}

int main(void) {
    printf("%g\n", __enzyme_autodiff((void *)pick, 0.5, 1));
    return 0;
}
