// Diagnostic: the tapes of one function go to both __enzyme_fwdsplit and
// __enzyme_reverse. enzc's tape for the forward split replay (a log of the values
// the primal read) differs from split reverse mode's, and the __enzyme_augmentfwd
// call cannot make both, so it refuses instead of handing one the other's tape.
#include <math.h>
#include <stdio.h>

void *__enzyme_augmentfwd(void *, ...);
double __enzyme_fwdsplit(void *, ...);
double __enzyme_reverse(void *, ...);

double f(double x) { return exp(x) * x; }

int main(void) {
    double x = 0.5;
    void *tape = __enzyme_augmentfwd((void *)f, x); /* DIAG-LINE */
    double dx = __enzyme_fwdsplit((void *)f, x, 1.0, tape);
    void *tape2 = __enzyme_augmentfwd((void *)f, x);
    double gx = __enzyme_reverse((void *)f, x, 1.0, tape2);
    printf("%g %g\n", dx, gx);
    return 0;
}
