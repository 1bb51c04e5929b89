// Diagnostic: the differentiated function calls an external function whose body the
// compiler cannot see and that has no derivative rule; the build must stop with an
// error at the call (file:line with -g), naming the function, with a hint.
#include <math.h>
#include <stdio.h>

double __enzyme_autodiff(void *, ...);
double mystery(double);

double f(double x) {
    double y = sin(x);
    return y * mystery(x); /* DIAG-LINE */
}

int main(void) {
    printf("%g\n", __enzyme_autodiff((void *)f, 1.5));
    return 0;
}
