// Coefficients in a global array are read in the loop and one of them is updated
// once at the end (an inactive store into global memory). The reverse pass reloads
// the coefficients (the update is undone at its reverse and replayed at the end),
// so the gradient uses the values the loop saw and the update is there afterwards;
// a second gradient call sees the updated coefficient.
// tol: rel=1e-12 abs=1e-14
// grads: 10
#include <stdio.h>

extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);

enum { N = 4 };
double coef[N] = {1.5, -0.5, 0.25, 2.0};

void weigh(const double *x, int n, double *out) {
    double s = 0;
    for (int i = 0; i < n; i++) s += coef[i] * x[i] * x[i];
    *out = s;
    coef[0] = coef[0] + 1.0;
}

int main(void) {
    double x[N] = {0.3, -1.2, 0.8, 0.5};
    for (int call = 0; call < 2; call++) {
        double dx[N] = {0}, out = 0, dout = 1, c0 = coef[0];
        __enzyme_autodiff((void *)weigh, enzyme_dup, x, dx, enzyme_const, N, enzyme_dup, &out, &dout);
        for (int i = 0; i < N; i++)
            printf("grad call%d.dx[%d] %.17g %.17g\n", call, i, dx[i], 2 * (i == 0 ? c0 : coef[i]) * x[i]);
        printf("grad call%d.coef0 %.17g %.17g\n", call, coef[0], c0 + 1.0);
    }
    return 0;
}
