// long double (x86_fp80) arithmetic and libm calls, in reverse and forward mode:
// the derivative's own constants (0, 1, rule numbers) are x86_fp80 constants too.
// tol: rel=1e-12 abs=1e-14
// grads: 4
#include <math.h>
#include <stdio.h>

long double __enzyme_autodiff(void *, ...);
long double __enzyme_fwddiff(void *, ...);

long double f(long double x) { return sinl(x) * expl(x) + x * x * x / 3.0L + sqrtl(x); }

double g(double x) {
    long double y = x;
    return (double)(y * y * 3.0L + logl(y));
}

int main(void) {
    const long double xs[2] = {0.7L, 1.9L};
    for (int i = 0; i < 2; i++) {
        long double x = xs[i];
        long double expect = cosl(x) * expl(x) + sinl(x) * expl(x) + x * x + 0.5L / sqrtl(x);
        printf("grad f'@%d %.17g %.17g\n", i, (double)__enzyme_autodiff((void *)f, x), (double)expect);
        printf("grad f'fwd@%d %.17g %.17g\n", i, (double)__enzyme_fwddiff((void *)f, x, 1.0L), (double)expect);
    }
    return 0;
}
