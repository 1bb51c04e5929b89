// Runtime activity from the driver flag (no marker): a pointer chosen between an
// array passed enzyme_const and an active one (diag/const_pointer_select.c, an error
// without it). Reads through the const array's side carry no derivative.
// flags: --enzc-runtime-activity
// tol: rel=1e-12 abs=1e-14
// grads: 6
#include <stdio.h>
#include <enzyme/enzyme.h>

double pick(const double *w, double *x, int n) {
    double s = 0;
    for (int i = 0; i < n; i++) {
        const double *p = (x[i] > 0) ? w : x;
        s += p[i] * x[i];
    }
    return s;
}

int main(void) {
    double w[3] = {0.5, -1.0, 2.0}, x[3] = {2.0, -3.0, 1.0}, dx[3] = {0};
    __enzyme_autodiff((void *)pick, enzyme_const, w, enzyme_dup, x, dx, enzyme_const, 3);
    for (int i = 0; i < 3; i++) printf("grad rev_x%d %.17g %.17g\n", i, dx[i], x[i] > 0 ? w[i] : 2 * x[i]);
    for (int i = 0; i < 3; i++) {
        double tx[3] = {0};
        tx[i] = 1;
        double t = __enzyme_fwddiff((void *)pick, enzyme_const, w, enzyme_dup, x, tx, enzyme_const, 3);
        printf("grad fwd_x%d %.17g %.17g\n", i, t, x[i] > 0 ? w[i] : 2 * x[i]);
    }
    return 0;
}
