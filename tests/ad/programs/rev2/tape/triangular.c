// A triangular nested loop whose inner count depends on the outer index: the
// inner loop-carried values are cached in chunks allocated per outer iteration
// (from the derivative's arena, not one malloc each). n is only known at run
// time. Checked against central finite differences.
// tol: rel=1e-6 abs=1e-9
// grads: 7
#include <math.h>
#include <stdio.h>

extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);

__attribute__((noinline)) double tri(const double *x, int n) {
    double total = 0;
    for (int i = 0; i < n; i++) {
        double t = x[i];
        for (int j = 0; j <= i; j++)
            t = sin(t * x[j]) + 0.5 * t;
        total += t * t;
    }
    return total;
}

int main(int argc, char **argv) {
    (void)argv;
    int n = 6 + argc;  /* 7, not a compile-time constant */
    double x[16], dx[16] = {0};
    for (int i = 0; i < n; i++) x[i] = 0.4 + 0.1 * i;
    __enzyme_autodiff((void *)tri, enzyme_dup, x, dx, enzyme_const, n);
    for (int i = 0; i < n; i++) {
        double h = 1e-6 * fmax(1.0, fabs(x[i])), keep = x[i];
        x[i] = keep + h;
        double up = tri(x, n);
        x[i] = keep - h;
        double down = tri(x, n);
        x[i] = keep;
        printf("grad dx[%d] %.17g %.17g\n", i, dx[i], (up - down) / (2 * h));
    }
    return 0;
}
