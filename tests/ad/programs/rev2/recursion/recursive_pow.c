// A recursive function: fast exponentiation by squaring, x^n with n const.
// tol: rel=1e-12 abs=1e-14
// grads: 5
#include <math.h>
#include <stdio.h>

extern int enzyme_out, enzyme_const;
double __enzyme_autodiff(void *, ...);

__attribute__((noinline)) double rpow(double x, int n) {
    if (n == 0) return 1.0;
    if (n % 2) return x * rpow(x, n - 1);
    double h = rpow(x, n / 2);
    return h * h;
}

double f(double x, int n) { return rpow(x, n) + rpow(sin(x), 2); }

int main(void) {
    const int ns[] = {1, 2, 5, 8, 13};
    double x = 1.07;
    for (int i = 0; i < 5; i++) {
        int n = ns[i];
        double d = __enzyme_autodiff((void *)f, enzyme_out, x, enzyme_const, n);
        printf("grad rpow_n%d %.17g %.17g\n", n, d, n * pow(x, n - 1) + 2 * sin(x) * cos(x));
    }
    return 0;
}
