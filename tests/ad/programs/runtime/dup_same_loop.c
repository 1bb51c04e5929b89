// Runtime activity: `enzyme_dup, w, w` (a shadow equal to its primal) marks w inactive
// at run time in a plain loop that reads w and x and writes an output array through
// a pointer whose shadow is also its primal (out, out): no derivative is written into
// w or out, the gradient of x matches the analytic one, in reverse and forward mode.
// tol: rel=1e-12 abs=1e-14
// grads: 16
#include <stdio.h>
#include <string.h>
#include <enzyme/enzyme.h>

enum { N = 4 };

double energy(const double *x, const double *w, double *out, int n) {
    double s = 0;
    for (int i = 0; i < n; i++) {
        out[i] = w[i] * x[i];
        s += out[i] * x[i] + w[i] * x[i];
    }
    return s;
}

int main(void) {
    double x[N] = {0.5, -1.0, 2.0, 0.25}, w[N] = {1.5, -2.0, 0.75, 3.0}, out[N], dx[N] = {0};
    double w0[N];
    memcpy(w0, w, sizeof w);
    __enzyme_autodiff((void *)energy, enzyme_runtime_activity, enzyme_dup, x, dx, enzyme_dup, w, w,
                      enzyme_dup, out, out, enzyme_const, N);
    for (int i = 0; i < N; i++) printf("grad rev_x%d %.17g %.17g\n", i, dx[i], 2 * w[i] * x[i] + w[i]);
    for (int i = 0; i < N; i++) {
        double tx[N] = {0};
        tx[i] = 1;
        double t = __enzyme_fwddiff((void *)energy, enzyme_runtime_activity, enzyme_dup, x, tx,
                                    enzyme_dup, w, w, enzyme_dup, out, out, enzyme_const, N);
        printf("grad fwd_x%d %.17g %.17g\n", i, t, 2 * w[i] * x[i] + w[i]);
    }
    for (int i = 0; i < N; i++) printf("grad w%d_unchanged %.17g %.17g\n", i, w[i], w0[i]);
    for (int i = 0; i < N; i++) printf("grad out%d %.17g %.17g\n", i, out[i], w[i] * x[i]);
    return 0;
}
