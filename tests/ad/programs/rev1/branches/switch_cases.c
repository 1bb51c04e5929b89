// A switch with several cases and a default, on a const int and on an integer derived
// from active data (the branch itself carries no derivative).
// tol: rel=1e-12 abs=1e-14
// grads: 9
#include <math.h>
#include <stdio.h>

extern int enzyme_out, enzyme_const;
double __enzyme_autodiff(void *, ...);

double by_mode(double x, int mode) {
    double r;
    switch (mode) {
    case 0: r = x * x; break;
    case 1: r = exp(x); break;
    case 2: r = sin(x) * x; break;
    case 5: r = sqrt(x); break;
    default: r = 3.0 * x;
    }
    return r + x;
}

double by_bucket(double x) {
    switch ((int)floor(x)) {
    case 0: return x * x;
    case 1: return 2.0 * x * x * x;
    case 2: return cos(x);
    default: return -x;
    }
}

int main(void) {
    double x = 1.4;
    const double refs[6] = {2 * x, exp(x), sin(x) + x * cos(x), 3.0, 3.0, 0.5 / sqrt(x)};
    for (int mode = 0; mode < 6; mode++) {
        double d = __enzyme_autodiff((void *)by_mode, enzyme_out, x, enzyme_const, mode);
        printf("grad mode%d %.17g %.17g\n", mode, d, refs[mode] + 1.0);
    }
    const double xs[] = {0.5, 1.5, 2.5};
    const double brefs[] = {1.0, 6 * 1.5 * 1.5, -sin(2.5)};
    for (int i = 0; i < 3; i++)
        printf("grad bucket@%g %.17g %.17g\n", xs[i],
               __enzyme_autodiff((void *)by_bucket, enzyme_out, xs[i]), brefs[i]);
    return 0;
}
