// Stores of int and double to different memory: a loop writes int counts through an
// int pointer that, by C's aliasing rules (TBAA), cannot point at the double input,
// so the double loads are reloaded in the reverse pass even at -O2 where the int
// store stays in the loop. The int outputs and the double result must be right after
// the gradient call.
// tol: rel=1e-12 abs=1e-14
// grads: 11
#include <math.h>
#include <stdio.h>

extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);

void bucket(const double *x, int n, int *bin, double *out) {
    double s = 0;
    for (int i = 0; i < n; i++) {
        s += x[i] * x[i] * x[i];
        bin[i] = (int)floor(4 * x[i]);
    }
    *out = s;
}

int main(void) {
    enum { N = 5 };
    double x[N], dx[N] = {0};
    int bin[N] = {0};
    for (int i = 0; i < N; i++) x[i] = 0.45 * i - 0.8;
    double out = 0, dout = 1;
    __enzyme_autodiff((void *)bucket, enzyme_dup, x, dx, enzyme_const, N, enzyme_const, bin,
                      enzyme_dup, &out, &dout);
    double s = 0;
    for (int i = 0; i < N; i++) {
        printf("grad dx[%d] %.17g %.17g\n", i, dx[i], 3 * x[i] * x[i]);
        printf("grad bin[%d] %d %d\n", i, bin[i], (int)floor(4 * x[i]));
        s += x[i] * x[i] * x[i];
    }
    printf("grad out %.17g %.17g\n", out, s);
    return 0;
}
