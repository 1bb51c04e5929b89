// A noinline helper called in a loop: the reverse pass calls its derivative once per
// iteration, in reverse order, with each iteration's argument.
// tol: rel=1e-12 abs=1e-14
// grads: 8
#include <math.h>
#include <stdio.h>

extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);

__attribute__((noinline)) double bump(double v, double k) { return exp(-k * v * v) + v; }

double total(const double *x, int n, double k) {
    double s = 0;
    for (int i = 0; i < n; i++) s += bump(x[i], k) * bump(x[(i + 1) % n], k);
    return s;
}

int main(void) {
    enum { N = 8 };
    double x[N], dx[N] = {0}, k = 0.7;
    for (int i = 0; i < N; i++) x[i] = 0.25 * i - 0.9;
    __enzyme_autodiff((void *)total, enzyme_dup, x, dx, enzyme_const, N, enzyme_const, k);
    for (int j = 0; j < N; j++) {
        double b = exp(-k * x[j] * x[j]);
        double db = -2 * k * x[j] * b + 1;
        double prev = bump(x[(j + N - 1) % N], k), next = bump(x[(j + 1) % N], k);
        printf("grad dx[%d] %.17g %.17g\n", j, dx[j], db * (prev + next));
    }
    return 0;
}
