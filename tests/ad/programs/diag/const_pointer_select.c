// Diagnostic: a pointer chosen between an array passed enzyme_const and an active
// one. The const array has no shadow and its size is unknown, so no zeroed stand-in
// can be made (as it is for a constant global table): a compile-time error naming the
// two ways out, never a gradient through a made-up shadow.
#include <stdio.h>

extern int enzyme_const, enzyme_dup;
void __enzyme_autodiff(void *, ...);

double pick(const double *w, double *x, int n) {
    double s = 0;
    for (int i = 0; i < n; i++) {
        const double *p = (x[i] > 0) ? w : x; /* DIAG-LINE */
        s += p[i] * x[i];
    }
    return s;
}

int main(void) {
    double w[3] = {0.5, -1.0, 2.0}, x[3] = {2.0, -3.0, 1.0}, dx[3] = {0};
    __enzyme_autodiff((void *)pick, enzyme_const, w, enzyme_dup, x, dx, enzyme_const, 3);
    printf("%g %g %g\n", dx[0], dx[1], dx[2]);
    return 0;
}
