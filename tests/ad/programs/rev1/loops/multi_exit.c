// A loop with several exits (two `return`s inside, one after the loop), each exit
// with its own result expression.
// tol: rel=1e-12 abs=1e-14
// grads: 12
#include <math.h>
#include <stdio.h>

extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);

double search(const double *x, int n, double lo, double hi) {
    double p = 1.0;
    for (int i = 0; i < n; i++) {
        p *= x[i];
        if (p > hi) return p * x[0];
        if (p < lo) return -p * p;
    }
    return p + x[n - 1];
}

int main(void) {
    enum { N = 4 };
    double sets[3][N] = {{1.5, 2.0, 3.0, 1.1}, {0.5, 0.5, -8.0, 1.0}, {1.1, 0.9, 1.2, 0.8}};
    double lo = -1.0, hi = 5.0;
    for (int s = 0; s < 3; s++) {
        double *x = sets[s], dx[N] = {0};
        __enzyme_autodiff((void *)search, enzyme_dup, x, dx, enzyme_const, N, enzyme_const, lo,
                          enzyme_const, hi);
        /* reference: find exit, then differentiate the product of the prefix */
        double p = 1.0;
        int k = N - 1, kind = 0;
        for (int i = 0; i < N; i++) {
            p *= x[i];
            if (p > hi) { k = i; kind = 1; break; }
            if (p < lo) { k = i; kind = 2; break; }
        }
        for (int j = 0; j < N; j++) {
            double dp = 0; /* d p / d x_j with p = prod_{i<=k} x_i */
            if (j <= k) { dp = 1; for (int i = 0; i <= k; i++) if (i != j) dp *= x[i]; }
            double ref;
            if (kind == 1) ref = dp * x[0] + (j == 0 ? p : 0);
            else if (kind == 2) ref = -2 * p * dp;
            else ref = dp + (j == N - 1 ? 1 : 0);
            printf("grad set%d.dx[%d] %.17g %.17g\n", s, j, dx[j], ref);
        }
    }
    return 0;
}
