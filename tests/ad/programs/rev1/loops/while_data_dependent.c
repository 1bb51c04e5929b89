// `while` loops whose trip count depends on the data: Newton iterations for sqrt(a)
// until convergence, and halving until < 1 (the count is known only at run time).
// tol: rel=1e-9 abs=1e-14
// grads: 7
#include <math.h>
#include <stdio.h>

double __enzyme_autodiff(void *, ...);

double newton_sqrt(double a) {
    double y = a > 1 ? a : 1.0;
    double prev;
    do {
        prev = y;
        y = 0.5 * (y + a / y);
    } while (fabs(y - prev) > 1e-15 * y);
    return y;
}

double halve(double x) {
    double s = 0;
    while (x >= 1.0) {
        s += x;
        x *= 0.5;
    }
    return s + x * x;
}

int main(void) {
    const double as[] = {2.0, 50.0, 0.3};
    for (int i = 0; i < 3; i++)
        printf("grad newton@%g %.17g %.17g\n", as[i],
               __enzyme_autodiff((void *)newton_sqrt, as[i]), 0.5 / sqrt(as[i]));
    const double xs[] = {0.7, 3.0, 40.0, 1000.5};
    for (int i = 0; i < 4; i++) {
        double x = xs[i], scale = 1.0, ds = 0;
        while (x >= 1.0) { ds += scale; x *= 0.5; scale *= 0.5; }
        double ref = ds + 2 * x * scale;
        printf("grad halve@%g %.17g %.17g\n", xs[i], __enzyme_autodiff((void *)halve, xs[i]), ref);
    }
    return 0;
}
