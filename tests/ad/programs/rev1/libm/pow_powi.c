// pow with both arguments active, with a constant exponent, and __builtin_powi
// (llvm.powi) with an int exponent that is const by default.
// tol: rel=1e-12 abs=1e-14
// grads: 7
#include <math.h>
#include <stdio.h>

extern int enzyme_out, enzyme_const;
typedef struct { double dx, dy; } Pair;
double __enzyme_autodiff(void *, ...);
Pair __enzyme_autodiff_pair(void *, int, double, int, double);

double f_pow(double x, double y) { return pow(x, y); }
double f_pow_c(double x) { return pow(x, 2.5); }
double f_pow_3(double x) { return pow(x, 3.0); }
double f_powi(double x, int n) { return __builtin_powi(x, n); }

int main(void) {
    double x = 1.7, y = 2.3;
    Pair p = __enzyme_autodiff_pair((void *)f_pow, enzyme_out, x, enzyme_out, y);
    printf("grad pow.dx %.17g %.17g\n", p.dx, y * pow(x, y - 1));
    printf("grad pow.dy %.17g %.17g\n", p.dy, pow(x, y) * log(x));
    printf("grad pow2.5 %.17g %.17g\n", __enzyme_autodiff((void *)f_pow_c, x),
           2.5 * pow(x, 1.5));
    double z = -1.3;
    printf("grad pow3@neg %.17g %.17g\n", __enzyme_autodiff((void *)f_pow_3, z), 3 * z * z);
    const int ns[] = {3, -2, 0};
    for (int i = 0; i < 3; i++) {
        int n = ns[i];
        double d = __enzyme_autodiff((void *)f_powi, enzyme_out, x, enzyme_const, n);
        printf("grad powi%d %.17g %.17g\n", n, d, n == 0 ? 0.0 : n * pow(x, n - 1));
    }
    return 0;
}
