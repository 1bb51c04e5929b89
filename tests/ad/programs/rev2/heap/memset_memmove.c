// memset (zeroing an active buffer) and memmove (overlapping shift) inside the
// differentiated function.
// tol: rel=1e-12 abs=1e-14
// grads: 6
#include <math.h>
#include <stdio.h>
#include <string.h>

extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);

double shift_sum(const double *x, int n) {
    double buf[16];
    memset(buf, 0, sizeof buf);
    for (int i = 0; i < n; i++) buf[i] = x[i] * x[i];
    memmove(buf + 1, buf, n * sizeof(double)); /* buf[1..n] = old buf[0..n-1] */
    double s = 0;
    for (int i = 0; i <= n; i++) s += buf[i] * (i + 1);
    return s;
}

int main(void) {
    enum { N = 6 };
    double x[N], dx[N] = {0};
    for (int i = 0; i < N; i++) x[i] = 1.0 - 0.3 * i;
    __enzyme_autodiff((void *)shift_sum, enzyme_dup, x, dx, enzyme_const, N);
    /* buf[0] = x0^2 (weight 1) and buf[i+1] = x_i^2 (weight i+2) */
    for (int i = 0; i < N; i++) {
        double w = (i + 2) + (i == 0 ? 1 : 0);
        printf("grad dx[%d] %.17g %.17g\n", i, dx[i], 2 * x[i] * w);
    }
    return 0;
}
