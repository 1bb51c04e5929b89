// A triangular loop nest large enough that its per-iteration cache pieces
// (8*(i+1) bytes for row i, ~80 KB in all) fill several arena blocks: the arena
// links new blocks instead of moving old ones, so the cached piece pointers stay
// valid. Called twice, to reuse nothing from the first call. Sampled entries are
// checked against central finite differences.
// tol: rel=1e-6 abs=1e-9
// grads: 12
#include <math.h>
#include <stdio.h>

extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);

enum { N = 140 };

__attribute__((noinline)) double tri(const double *x, int n) {
    double total = 0;
    for (int i = 0; i < n; i++) {
        double t = x[i];
        for (int j = 0; j <= i; j++)
            t = sin(t * x[j]) + 0.5 * t;
        total += t * x[n - 1 - i];
    }
    return total;
}

int main(int argc, char **argv) {
    (void)argv;
    int n = N - 1 + argc;  /* N, not a compile-time constant */
    static double x[N], dx[N];
    for (int i = 0; i < n; i++) x[i] = 0.3 + 0.6 * sin(0.37 * i);
    __enzyme_autodiff((void *)tri, enzyme_dup, x, dx, enzyme_const, n);
    for (int i = 0; i < n; i++) dx[i] = 0;
    __enzyme_autodiff((void *)tri, enzyme_dup, x, dx, enzyme_const, n);
    for (int k = 0; k < 12; k++) {
        int i = k * (n - 1) / 11;
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
