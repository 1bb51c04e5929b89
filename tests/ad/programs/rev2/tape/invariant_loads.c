// Loads that must be taped (their buffer is overwritten later in the call) but
// that do not vary in a middle loop: `in[r][i]` read in `for r / for o / for i`
// is cached per (r, i), not per (r, o, i) (`loop_variance`). In `smear` the
// middle loop writes the very row the inner loop reads, so there the load varies
// in every loop and must stay cached per iteration. Checked against central
// finite differences.
// tol: rel=1e-6 abs=1e-9
// grads: 20
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

extern int enzyme_dup, enzyme_const, enzyme_out;
double __enzyme_autodiff(void *, ...);

enum { ROWS = 3, NIN = 4, NOUT = 2 };

__attribute__((noinline)) static void matmul(double *out, const double *in, const double *w, int rows,
                                             int nin, int nout) {
    for (int r = 0; r < rows; r++)
        for (int o = 0; o < nout; o++) {
            double s = 0;
            for (int i = 0; i < nin; i++)
                s += sin(in[r * nin + i]) * w[o * nin + i];
            out[r * nout + o] = s;
        }
}

/* The middle loop stores into buf's row r, which the inner loop reads. */
__attribute__((noinline)) static void smear(double *buf, int rows, int n) {
    for (int r = 0; r < rows; r++)
        for (int o = 0; o < 2; o++) {
            double s = 0;
            for (int i = 0; i < n; i++)
                s += buf[r * n + i] * buf[r * n + i];
            buf[r * n + o] = 0.5 * s;
        }
}

static double objective(const double *x, const double *w) {
    double *tmp = malloc(sizeof(double) * ROWS * NIN), *out = malloc(sizeof(double) * ROWS * NOUT);
    for (int k = 0; k < ROWS * NIN; k++)
        tmp[k] = cos(x[k]);
    matmul(out, tmp, w, ROWS, NIN, NOUT);
    for (int k = 0; k < ROWS * NIN; k++)
        tmp[k] = out[k % (ROWS * NOUT)] * x[k];  /* tmp overwritten: matmul's loads are taped */
    smear(tmp, ROWS, NIN);
    double total = 0;
    for (int k = 0; k < ROWS * NIN; k++)
        total += tmp[k] * tmp[k];
    free(tmp);
    free(out);
    return total;
}

int main(void) {
    double x[ROWS * NIN], w[NOUT * NIN], dx[ROWS * NIN] = {0}, dw[NOUT * NIN] = {0};
    for (int k = 0; k < ROWS * NIN; k++)
        x[k] = 0.3 + 0.1 * k * ((k & 1) ? -1 : 1);
    for (int k = 0; k < NOUT * NIN; k++)
        w[k] = 0.2 - 0.05 * k;
    __enzyme_autodiff((void *)objective, enzyme_dup, x, dx, enzyme_dup, w, dw);
    for (int k = 0; k < ROWS * NIN; k++) {
        double h = 1e-6 * fmax(1.0, fabs(x[k])), c[ROWS * NIN];
        for (int j = 0; j < ROWS * NIN; j++) c[j] = x[j];
        c[k] = x[k] + h;
        double up = objective(c, w);
        c[k] = x[k] - h;
        double down = objective(c, w);
        printf("grad dx[%d] %.17g %.17g\n", k, dx[k], (up - down) / (2 * h));
    }
    for (int k = 0; k < NOUT * NIN; k++) {
        double h = 1e-6 * fmax(1.0, fabs(w[k])), c[NOUT * NIN];
        for (int j = 0; j < NOUT * NIN; j++) c[j] = w[j];
        c[k] = w[k] + h;
        double up = objective(x, c);
        c[k] = w[k] - h;
        double down = objective(x, c);
        printf("grad dw[%d] %.17g %.17g\n", k, dw[k], (up - down) / (2 * h));
    }
    return 0;
}
