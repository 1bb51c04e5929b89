// Diagnostic: an active indirect call through a table that also holds a library
// function without a body in the program's bitcode and without a derivative rule
// (logb, the binary exponent as a double; `sin` would be called through a wrapper with its rule): a
// compile-time error naming it, rather than a derivative that would be missing
// whenever the pointer is `logb`. -DFORWARD: the same in forward mode.
#include <math.h>
#include <stdio.h>

extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

typedef double (*unary)(double);
static double sq(double x) { return x * x; }
static unary const ops[2] = {sq, logb};

double apply(const double *x, int c) {
    return ops[c](x[0]); /* DIAG-LINE */
}

int main(void) {
    double x[1] = {0.3}, dx[1] = {0};
#ifdef FORWARD
    dx[0] = 1;
    dx[0] = __enzyme_fwddiff((void *)apply, enzyme_dup, x, dx, enzyme_const, 1);
#else
    __enzyme_autodiff((void *)apply, enzyme_dup, x, dx, enzyme_const, 1);
#endif
    printf("%g\n", dx[0]);
    return 0;
}
