// Diagnostic: vector reverse mode does not differentiate a call of a function that
// returns a pointer into active memory (its shadow would be one per lane).
#include <stdio.h>

extern int enzyme_width, enzyme_dupv;
void __enzyme_autodiff(void *, ...);

__attribute__((noinline)) double *middle(double *v, int n) { return v + n / 2; }

void f(double *v, int n) {
    double *m = middle(v, n); /* DIAG-LINE */
    m[0] = m[0] * m[0];
}

int main(void) {
    double v[4] = {1, 2, 3, 4}, dv[2][4] = {{0, 0, 1, 0}, {0, 0, 2, 0}};
    __enzyme_autodiff((void *)f, enzyme_width, 2, enzyme_dupv, sizeof(double) * 4, v, dv[0], 4);
    printf("%g %g\n", dv[0][2], dv[1][2]);
    return 0;
}
