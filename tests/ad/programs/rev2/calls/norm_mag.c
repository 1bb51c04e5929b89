// The paper's example: norm() calls mag() inside its loop; after optimization mag is
// loop-invariant and hoisted, before it, it is called n times. out is dup with its
// shadow seeded with w: d in_j = w_j/m - (sum_i w_i in_i) in_j / m^3.
// tol: rel=1e-12 abs=1e-14
// grads: 6
#include <math.h>
#include <stdio.h>

extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);

double mag(const double *x, int n) {
    double s = 0;
    for (int i = 0; i < n; i++) s += x[i] * x[i];
    return sqrt(s);
}

void norm(double *out, const double *in, int n) {
    for (int i = 0; i < n; i++) out[i] = in[i] / mag(in, n);
}

int main(void) {
    enum { N = 6 };
    double in[N], din[N] = {0}, out[N], dout[N], w[N];
    for (int i = 0; i < N; i++) { in[i] = 0.5 + 0.3 * i * (i % 2 ? -1 : 1); w[i] = dout[i] = 1.0 - 0.2 * i; }
    __enzyme_autodiff((void *)norm, enzyme_dup, out, dout, enzyme_dup, in, din, enzyme_const, N);
    double m = mag(in, N), wi = 0;
    for (int i = 0; i < N; i++) wi += w[i] * in[i];
    for (int j = 0; j < N; j++)
        printf("grad din[%d] %.17g %.17g\n", j, din[j], w[j] / m - wi * in[j] / (m * m * m));
    return 0;
}
