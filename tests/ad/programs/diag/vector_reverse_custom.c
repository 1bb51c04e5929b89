// Diagnostic: vector reverse mode (enzyme_width in __enzyme_autodiff) does not reach a
// call with a user gradient: the registered reverse function takes one adjoint, not N.
#include <stdio.h>

extern int enzyme_width;
typedef struct { double d[2]; } Two;
Two __enzyme_autodiff(void *, ...);

__attribute__((noinline)) double cube(double x) { return x * x * x; }
static void *aug_cube(double x) { (void)x; return 0; }
static double rev_cube(double x, double d, void *tape) { (void)tape; return 3 * x * x * d; }
void *__enzyme_register_gradient_cube[3] = {(void *)cube, (void *)aug_cube, (void *)rev_cube};

double f(double x) {
    return cube(x) + x; /* DIAG-LINE */
}

int main(void) {
    Two g = __enzyme_autodiff((void *)f, enzyme_width, 2, 0.5);
    printf("%g %g\n", g.d[0], g.d[1]);
    return 0;
}
