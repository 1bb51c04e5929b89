// A helper that returns sin(*x) (or cos) directly, called from a loop that then
// overwrites x[i]: the helper gets an augmented forward pass that returns its value
// and keeps the partner cosine for the reverse; sin and cos of the one argument
// become one sincos call there. The returned value was the erased sin call, so the
// module after AD was invalid IR ("a bug in enzc"; std::valarray's std::sin under
// --enzc-ad-before-opt hit it). Reverse mode.
// Reference: analytic derivatives.
// tol: rel=1e-12 abs=1e-14
// grads: 8
#include <math.h>
#include <stdio.h>

double __enzyme_autodiff(void *, ...);
extern int enzyme_dup, enzyme_const;

__attribute__((noinline)) static double sine_of(const double *x) { return sin(*x); }
__attribute__((noinline)) static double cosine_of(const double *x) { return cos(*x); }

double f(double *x, int n) {
    double t = 0;
    for (int i = 0; i < n; i++) {
        t += sine_of(x + i) * x[i] + cosine_of(x + i);
        x[i] = 0;
    }
    return t;
}

int main(void) {
    enum { N = 4 };
    const double x0[N] = {0.3, -0.5, 0.9, 1.7};
    for (int round = 0; round < 2; round++) {
        double x[N], dx[N] = {0};
        for (int i = 0; i < N; i++) x[i] = x0[i];
        __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_const, N);
        for (int i = 0; i < N; i++) {
            double a = x0[i];
            printf("grad r%d_x%d %.17g %.17g\n", round, i, dx[i], sin(a) + a * cos(a) - sin(a));
        }
    }
    return 0;
}
