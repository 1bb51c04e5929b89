// Diagnostic: __enzyme_autodiff called through a function pointer. enzc replaces
// direct calls only; left alone, the link would fail on an undefined
// __enzyme_autodiff in a temporary file.
#include <stdio.h>

double __enzyme_autodiff(void *, ...);
double f(double x) { return x * x; }

int main(void) {
    double (*volatile grad)(void *, ...) = __enzyme_autodiff; /* DIAG-LINE */
    printf("%g\n", grad((void *)f, 1.5));
    return 0;
}
