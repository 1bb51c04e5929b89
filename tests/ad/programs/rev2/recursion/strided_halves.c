// A recursion over strided halves with an in-place combine, shaped like the FFT
// benchmark: the reverse recomputes n / 2, 2 * stride and the halves' addresses
// and their shadows from its arguments instead of taping them (`rematerialize`);
// n / k (k a runtime argument) may trap, so it is kept. Checked against central
// finite differences.
// tol: rel=1e-6 abs=1e-9
// grads: 8
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);

enum { N = 8 };

static void rec(const double *in, double *out, int n, int stride, int k) {
    if (n == 1) {
        out[0] = sin(in[0]);
        return;
    }
    int h = n / 2;
    rec(in, out, h, 2 * stride, k);
    rec(in + stride, out + h, h, 2 * stride, k);
    double scale = k ? (double)(n / k) : 1.0;
    for (int i = 0; i < h; i++) {
        double e = out[i], o = out[i + h];
        out[i] = e + scale * o * e;
        out[i + h] = e - o;
    }
}

static double objective(const double *x, int k) {
    double *out = malloc(sizeof(double) * N);
    rec(x, out, N, 1, k);
    double s = 0;
    for (int i = 0; i < N; i++)
        s += out[i] * out[i] * (i + 1);
    free(out);
    return s;
}

void gradient(const double *x, double *dx, int k, double *loss) {
    __enzyme_autodiff((void *)objective, enzyme_dup, x, dx, enzyme_const, k);
    *loss = objective(x, k);
}

int main(void) {
    double x[N], dx[N] = {0}, loss;
    for (int i = 0; i < N; i++)
        x[i] = 0.1 + 0.07 * i * ((i & 1) ? -1 : 1);
    gradient(x, dx, 3, &loss);
    for (int i = 0; i < N; i++) {
        double h = 1e-6 * fmax(1.0, fabs(x[i])), c[N];
        for (int j = 0; j < N; j++) c[j] = x[j];
        c[i] = x[i] + h;
        double up = objective(c, 3);
        c[i] = x[i] - h;
        double down = objective(c, 3);
        printf("grad dx[%d] %.17g %.17g\n", i, dx[i], (up - down) / (2 * h));
    }
    return 0;
}
