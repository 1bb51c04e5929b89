// Enzyme's clang-plugin attributes, which enzcc turns into clang annotations:
// __attribute__((enzyme_inactive)) on a function (its calls carry no derivative:
// d/dx of x + scale(x) is 1, not 3) and on a global written with active values,
// and __attribute__((enzyme_function_like("log1p"))) on a function whose body
// would differentiate to 0 (it quantizes through an integer).
// tol: rel=1e-12 abs=1e-14
// grads: 6
#include <math.h>
#include <stdio.h>

double __enzyme_autodiff(void *, ...);

__attribute__((enzyme_inactive)) double scale(double x) { return 2 * x; }

__attribute__((enzyme_inactive)) double last_seen;

__attribute__((enzyme_function_like("log1p"))) double my_log1p(double a) {
    return (double)(long long)(log1p(a) * 1e15) * 1e-15;
}

double f(double x) {
    last_seen = x * x;
    return x + scale(x) + 3 * my_log1p(x * x);
}

int main(void) {
    const double xs[] = {0.5, 1.25, -0.8};
    for (int i = 0; i < 3; i++) {
        double x = xs[i];
        double d = __enzyme_autodiff((void *)f, x);
        printf("grad f@%g %.17g %.17g\n", x, d, 1 + 3 * 2 * x / (1 + x * x));
        printf("grad last_seen@%g %.17g %.17g\n", x, last_seen, x * x);
    }
    return 0;
}
