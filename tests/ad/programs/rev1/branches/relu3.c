// The seeds' example: relu3(x) = x^3 for x > 0, else 0; both sides of the branch.
// tol: rel=1e-12 abs=1e-14
// grads: 4
#include <math.h>
#include <stdio.h>

double __enzyme_autodiff(void *, ...);

double relu3(double x) {
    double r = 0;
    if (x > 0) r = pow(x, 3);
    return r;
}

int main(void) {
    const double xs[] = {2.0, 0.5, -1.0, -3.5};
    for (int i = 0; i < 4; i++) {
        double x = xs[i];
        printf("grad relu3@%g %.17g %.17g\n", x, __enzyme_autodiff((void *)relu3, x),
               x > 0 ? 3 * x * x : 0.0);
    }
    return 0;
}
