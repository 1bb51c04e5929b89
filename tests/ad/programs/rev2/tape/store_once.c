// Caches of loads that are the same in every iteration of the middle loop
// (`in[r][i]` in `for r / for o / for i`, taped because `in` is overwritten
// later) are stored in the first iteration of `o` that runs the inner loop only
// (`synth/store_once.py`). `tri`'s inner count depends on `o` (o = 0 visits two
// slots of five): storing once there would lose slots, so it stores every time. `late`
// skips the inner loop in the first iteration of `o`: the second one, which runs it,
// stores. `counted` loads its inner count inside `o` under a condition, so each
// iteration of `o` gets an array of its own: all are stored. Checked against
// central finite differences.
// tol: rel=1e-6 abs=1e-9
// grads: 35
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);

enum { ROWS = 4, NIN = 5, NOUT = 3, NX = ROWS * NIN, NW = NOUT * NIN };

/* Two rows per block, each weight loaded once per block (GPT's matmul shape). */
__attribute__((noinline)) static void blocked(double *out, const double *in, const double *w, int rows,
                                              int nin, int nout) {
    for (int r = 0; r + 2 <= rows; r += 2)
        for (int o = 0; o < nout; o++) {
            double s0 = 0, s1 = 0;
            for (int i = 0; i < nin; i++) {
                double wi = w[o * nin + i];
                s0 += in[r * nin + i] * wi;
                s1 += in[(r + 1) * nin + i] * wi;
            }
            out[r * nout + o] = s0;
            out[(r + 1) * nout + o] = s1;
        }
}

/* The inner count grows with o: every iteration of o reaches new slots. */
__attribute__((noinline)) static void tri(double *out, const double *in, const double *w, int rows, int nin,
                                          int nout) {
    for (int r = 0; r < rows; r++)
        for (int o = 0; o < nout; o++) {
            double s = 0;
            for (int i = 0; i <= o + 1 && i < nin; i++)
                s += in[r * nin + i] * in[r * nin + i] * w[o * nin + i];
            out[r * nout + o] = s;
        }
}

/* The inner loop does not run in the first iteration of o. */
__attribute__((noinline)) static void late(double *out, const double *in, const double *w, int rows, int nin,
                                          int nout) {
    for (int r = 0; r < rows; r++)
        for (int o = 0; o < nout; o++) {
            double s = 1;
            if (o > 0)
                for (int i = 0; i < nin; i++)
                    s += in[r * nin + i] * in[r * nin + i] * w[o * nin + i];
            out[r * nout + o] = s;
        }
}

/* The inner count is loaded inside o, under a condition (not hoistable): the cache
 * is a new array per iteration of o, and each one must be stored. */
__attribute__((noinline)) static void counted(double *out, const double *in, const double *w,
                                              const int *len, int rows, int nout) {
    for (int r = 0; r < rows; r++)
        for (int o = 0; o < nout; o++) {
            double s = 0.5;
            if (w[o * NIN] > -1.0) {
                int n = len[r];
                for (int i = 0; i < n; i++)
                    s += in[r * NIN + i] * in[r * NIN + i] * w[o * NIN + i];
            }
            out[r * nout + o] = s;
        }
}

static const int lengths[ROWS] = {5, 3, 4, 2};

static double objective(const double *x, const double *w) {
    double *tmp = malloc(sizeof(double) * NX), *out = malloc(sizeof(double) * ROWS * NOUT);
    double total = 0;
    for (int pass = 0; pass < 4; pass++) {
        for (int k = 0; k < NX; k++)
            tmp[k] = cos(x[k] + pass);
        if (pass == 0)
            blocked(out, tmp, w, ROWS, NIN, NOUT);
        else if (pass == 1)
            tri(out, tmp, w, ROWS, NIN, NOUT);
        else if (pass == 2)
            late(out, tmp, w, ROWS, NIN, NOUT);
        else
            counted(out, tmp, w, lengths, ROWS, NOUT);
        for (int k = 0; k < NX; k++)
            tmp[k] = out[k % (ROWS * NOUT)] * x[k]; /* tmp overwritten: the kernels' loads are taped */
        for (int k = 0; k < NX; k++)
            total += tmp[k] * tmp[k];
    }
    free(tmp);
    free(out);
    return total;
}

static void check(const char *name, double *v, const double *d, int n, const double *x, const double *w) {
    for (int k = 0; k < n; k++) {
        double keep = v[k], h = 1e-6 * fmax(1.0, fabs(keep));
        v[k] = keep + h;
        double up = objective(x, w);
        v[k] = keep - h;
        double down = objective(x, w);
        v[k] = keep;
        printf("grad %s[%d] %.17g %.17g\n", name, k, d[k], (up - down) / (2 * h));
    }
}

int main(void) {
    double x[NX], w[NW], dx[NX] = {0}, dw[NW] = {0};
    for (int k = 0; k < NX; k++)
        x[k] = 0.3 + 0.1 * k * ((k & 1) ? -1 : 1);
    for (int k = 0; k < NW; k++)
        w[k] = 0.2 - 0.05 * k;
    __enzyme_autodiff((void *)objective, enzyme_dup, x, dx, enzyme_dup, w, dw);
    check("dx", x, dx, NX, x, w);
    check("dw", w, dw, NW, x, w);
    return 0;
}
