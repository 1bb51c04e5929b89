// Diagnostic: a function with a user forward derivative inside __enzyme_error_estimate:
// the user's code computes a tangent, not an error estimate, so enzc refuses it
// instead of passing a tangent off as an error.
#include <math.h>
#include <stdio.h>

double __enzyme_error_estimate(void *, ...);

double smooth(double x) { return exp(x); }
static double smooth_fwd(double x, double dx) { return exp(x) * dx; }
void *__enzyme_register_derivative_smooth[2] = {(void *)smooth, (void *)smooth_fwd};

double g(double x) { return smooth(x) * x; } /* DIAG-LINE */

int main(void) {
    printf("%g\n", __enzyme_error_estimate((void *)g, 0.5, 1e-16));
    return 0;
}
