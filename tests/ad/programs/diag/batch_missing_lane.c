// Diagnostic: __enzyme_batch with fewer values than its lanes need (enzyme_width 4, a
// parameter given 3 values): a located error, not a call with garbage arguments.
#include <stdio.h>

extern int enzyme_width;
typedef struct { double lane[4]; } Four;
Four __enzyme_batch(void *, ...);

static double square(double x) { return x * x; }

int main(void) {
    Four r = __enzyme_batch((void *)square, enzyme_width, 4, 1.0, 2.0, 3.0); /* DIAG-LINE */
    printf("%g\n", r.lane[0]);
    return 0;
}
