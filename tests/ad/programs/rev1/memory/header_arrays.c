// Uses <enzyme/enzyme.h> (the driver's header) with dup arrays and a dupnoneed output.
// tol: rel=1e-12 abs=1e-14
// grads: 5
#include <enzyme/enzyme.h>
#include <math.h>
#include <stdio.h>

void normalize_sum(const double *x, int n, double *out) {
    double s = 0;
    for (int i = 0; i < n; i++) s += x[i] * x[i];
    *out = sqrt(s);
}

int main(void) {
    double x[4] = {1.0, 2.0, -2.0, 4.0}, dx[4] = {0};
    double out = 0, dout = 1.0;
    __enzyme_autodiff((void *)normalize_sum, enzyme_dup, x, dx, enzyme_const, 4,
                      enzyme_dupnoneed, &out, &dout);
    for (int i = 0; i < 4; i++) printf("grad dx[%d] %.17g %.17g\n", i, dx[i], x[i] / 5.0);
    double out2 = 0, dout2 = 2.0; /* seed of 2 doubles the gradient */
    double dx2[4] = {0};
    __enzyme_autodiff((void *)normalize_sum, enzyme_dup, x, dx2, enzyme_const, 4,
                      enzyme_dup, &out2, &dout2);
    printf("grad dx2[3] %.17g %.17g\n", dx2[3], 2.0 * x[3] / 5.0);
    return 0;
}
