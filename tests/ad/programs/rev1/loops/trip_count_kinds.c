// The same reduction with the trip count as a function argument and as a
// compile-time constant (the constant-count loop may be analysed differently).
// tol: rel=1e-12 abs=1e-14
// grads: 12
#include <math.h>
#include <stdio.h>

extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);

#define N 6

double by_arg(const double *x, int n) {
    double s = 0;
    for (int i = 0; i < n; i++) s += cos(x[i]) * x[i];
    return s;
}

double by_const(const double *x) {
    double s = 0;
    for (int i = 0; i < N; i++) s += cos(x[i]) * x[i];
    return s;
}

int main(void) {
    double x[N], d1[N] = {0}, d2[N] = {0};
    for (int i = 0; i < N; i++) x[i] = 0.35 * i + 0.1;
    __enzyme_autodiff((void *)by_arg, enzyme_dup, x, d1, enzyme_const, N);
    __enzyme_autodiff((void *)by_const, enzyme_dup, x, d2);
    for (int i = 0; i < N; i++) {
        double ref = cos(x[i]) - x[i] * sin(x[i]);
        printf("grad arg.dx[%d] %.17g %.17g\n", i, d1[i], ref);
        printf("grad const.dx[%d] %.17g %.17g\n", i, d2[i], ref);
    }
    return 0;
}
