// Two `enzyme_out` scalars: the call returns a {double, double} struct (in two
// registers on x86-64), declared through a typed prototype.
// tol: rel=1e-12 abs=1e-14
// grads: 4
#include <math.h>
#include <stdio.h>

extern int enzyme_out;
typedef struct { double dx, dy; } Pair;
Pair __enzyme_autodiff_pair(void *, int, double, int, double);

double mul(double x, double y) { return x * y; }
double mix(double x, double y) { return x * x * y + exp(y) / x; }

int main(void) {
    double x = 1.25, y = -0.5;
    Pair p = __enzyme_autodiff_pair((void *)mul, enzyme_out, x, enzyme_out, y);
    printf("grad mul.dx %.17g %.17g\n", p.dx, y);
    printf("grad mul.dy %.17g %.17g\n", p.dy, x);
    Pair q = __enzyme_autodiff_pair((void *)mix, enzyme_out, x, enzyme_out, y);
    printf("grad mix.dx %.17g %.17g\n", q.dx, 2 * x * y - exp(y) / (x * x));
    printf("grad mix.dy %.17g %.17g\n", q.dy, x * x + exp(y) / x);
    return 0;
}
