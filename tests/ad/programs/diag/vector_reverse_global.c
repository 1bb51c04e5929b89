// Diagnostic: a global the differentiated code writes has one shadow (enzc's own or a
// registered one), so vector reverse mode cannot give it N adjoints.
#include <stdio.h>

extern int enzyme_width;
typedef struct { double d[2]; } Two;
Two __enzyme_autodiff(void *, ...);

double state;

double f(double x) {
    state = x * x; /* DIAG-LINE */
    return state * x;
}

int main(void) {
    Two g = __enzyme_autodiff((void *)f, enzyme_width, 2, 0.5);
    printf("%g %g\n", g.d[0], g.d[1]);
    return 0;
}
