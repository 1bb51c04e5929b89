// Diagnostic: enzyme_width is for __enzyme_fwddiff and __enzyme_autodiff; split reverse
// mode (__enzyme_augmentfwd / __enzyme_reverse) takes one adjoint per value.
#include <stdio.h>

extern int enzyme_width, enzyme_dup;
void *__enzyme_augmentfwd(void *, ...);

void scale(double *x) { x[0] *= x[0]; }

int main(void) {
    double x = 0.5, d0 = 1, d1 = 2;
    void *tape = __enzyme_augmentfwd((void *)scale, enzyme_width, 2, enzyme_dup, &x, &d0, &d1); /* DIAG-LINE */
    printf("%p\n", tape);
    return 0;
}
