// Reverse loops whose accesses enzcc puts in alias scopes (synth/alias_scopes.py):
// a matmul-like helper, vectorizable in reverse, called with a heap buffer, a
// stack array and the parameters (distinct shadows by what enzcc allocated), then
// with its output and input in two windows of one array and with the parameters
// as both input and weights (no claim between those). Any wrong `noalias` lets
// LLVM reorder the shadow updates of overlapping rows. Checked against central
// finite differences.
// tol: rel=1e-6 abs=1e-9
// grads: 24
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);

enum { N = 24 };

__attribute__((noinline)) static void mm(double *out, const double *in, const double *w, int nin, int nout)
{
    for (int o = 0; o < nout; o++) {
        double s = 0;
        for (int i = 0; i < nin; i++)
            s += in[i] * w[o * nin + i];
        out[o] = s;
    }
}

__attribute__((noinline)) static void shift_add(double *out, const double *in, int n)
{
    for (int i = n - 1; i >= 0; i--)
        out[i] += 0.5 * in[i] * in[i];
}

__attribute__((noinline)) double model(const double *p, int n)
{
    double *h = malloc(sizeof(double) * n);
    for (int i = 0; i < n; i++)
        h[i] = sin(p[i]);
    double st[6];
    mm(st, h, p, 4, 6);           /* out: stack, in: heap, w: the argument */
    double buf[12];
    for (int i = 0; i < 6; i++)
        buf[i] = st[i] * p[i + 6];
    mm(buf + 6, buf, p + 4, 6, 3); /* out and in: one array */
    mm(buf + 9, p + 1, p, 3, 3);   /* in and w: one argument */
    shift_add(buf + 1, buf, 11);   /* overlapping windows, updated in place */
    shift_add(h + 2, h, n - 2);
    double total = 0;
    for (int i = 0; i < 12; i++)
        total += buf[i] * buf[i];
    for (int i = 0; i < n; i++)
        total += h[i] * p[i];
    free(h);
    return total;
}

int main(int argc, char **argv)
{
    (void)argv;
    int n = N - 1 + argc; /* 24, not a compile-time constant */
    double p[N], dp[N] = {0};
    for (int i = 0; i < n; i++)
        p[i] = 0.3 + 0.05 * i - 0.02 * (i % 3);
    __enzyme_autodiff((void *)model, enzyme_dup, p, dp, enzyme_const, n);
    for (int i = 0; i < n; i++) {
        double h = 1e-6 * fmax(1.0, fabs(p[i])), keep = p[i];
        p[i] = keep + h;
        double up = model(p, n);
        p[i] = keep - h;
        double down = model(p, n);
        p[i] = keep;
        printf("grad dp[%d] %.17g %.17g\n", i, dp[i], (up - down) / (2 * h));
    }
    return 0;
}
