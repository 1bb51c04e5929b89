// Diagnostic: __enzyme_fwdsplit with a tape and enzyme_width. The tape's replay
// takes one tangent; several directions at once are not supported with a tape.
#include <stdio.h>

void *__enzyme_augmentfwd(void *, ...);
void __enzyme_fwdsplit(void *, ...);
extern int enzyme_dup, enzyme_width;

void square_in_place(double *x) { x[0] = x[0] * x[0]; }

int main(void) {
    double x[1] = {1.5}, dx[2] = {1.0, 0.0};
    void *tape = __enzyme_augmentfwd((void *)square_in_place, enzyme_dup, x, dx);
    __enzyme_fwdsplit((void *)square_in_place, enzyme_width, 2, enzyme_dup, x, dx, dx + 1, tape); /* DIAG-LINE */
    printf("%g %g\n", dx[0], dx[1]);
    return 0;
}
