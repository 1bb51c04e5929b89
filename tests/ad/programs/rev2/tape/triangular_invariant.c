// Causal-attention loops `for t / for u <= t` whose inner loop reads row u of a
// buffer that the loops do not write (it is overwritten later in the call, so the
// loads are taped): `kv[u][i]` is the same for every t, and is cached once per
// (u, i) in an array sized by the largest count of u over t (`causal`: at the
// last t; `strict`, u < t: at the last t, the first t runs no u; `anti`,
// u < n - t: at the first t). `clobber` is the look-alike whose t loop writes
// row t, which later t's read: its loads vary in t and stay cached per (t, u).
// `gather` runs the same nest inline in the objective (combined mode). `causal`
// and `clobber` get their sizes at run time (a volatile), the others constants.
// Checked against central finite differences.
// tol: rel=1e-6 abs=1e-9
// grads: 21
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

extern int enzyme_dup, enzyme_const, enzyme_out;
double __enzyme_autodiff(void *, ...);

enum { N = 7, D = 3 };
static volatile int runtime_n = N, runtime_d = D;

__attribute__((noinline)) static void causal(double *out, const double *kv, int n, int d) {
    for (int t = 0; t < n; t++) {
        double acc = 0;
        for (int u = 0; u <= t; u++) {
            double s = 0;
            for (int i = 0; i < d; i++)
                s += kv[t * d + i] * kv[u * d + i];
            acc += sin(s);
        }
        out[t] = acc;
    }
}

__attribute__((noinline)) static void strict(double *out, const double *kv, int n, int d) {
    for (int t = 0; t < n; t++) {
        double acc = 1;
        for (int u = 0; u < t; u++) {
            double s = 0;
            for (int i = 0; i < d; i++)
                s += kv[t * d + i] * cos(kv[u * d + i]);
            acc *= 1 + 0.1 * s * s;
        }
        out[t] = acc;
    }
}

__attribute__((noinline)) static void anti(double *out, const double *kv, int n, int d) {
    for (int t = 0; t < n; t++) {
        double acc = 0;
        for (int u = 0; u < n - t; u++)
            for (int i = 0; i < d; i++)
                acc += kv[t * d + i] * kv[u * d + i] * kv[u * d + i];
        out[t] = acc;
    }
}

/* Row t is written after its inner loop; rows u <= t are read: later t's see it. */
__attribute__((noinline)) static void clobber(double *out, double *kv, int n, int d) {
    for (int t = 0; t < n; t++) {
        double acc = 0;
        for (int u = 0; u <= t; u++) {
            double s = 0;
            for (int i = 0; i < d; i++)
                s += kv[t * d + i] * kv[u * d + i];
            acc += sin(s);
        }
        kv[t * d] = 0.5 * kv[t * d] + 0.1 * acc;
        out[t] = acc;
    }
}

static double objective(const double *x) {
    double *kv = malloc(sizeof(double) * N * D), *out = malloc(sizeof(double) * N);
    double total = 0;
    int n = runtime_n, d = runtime_d;
    for (int k = 0; k < N * D; k++)
        kv[k] = tanh(x[k]);
    causal(out, kv, n, d);
    for (int t = 0; t < N; t++)
        total += out[t] * out[t];
    strict(out, kv, N, D);
    for (int t = 0; t < N; t++)
        total += 0.5 * out[t];
    anti(out, kv, N, D);
    for (int t = 0; t < N; t++)
        total += 0.3 * out[t] * out[t];
    clobber(out, kv, n, d);
    for (int t = 0; t < N; t++)
        total += out[t] * (t + 1);
    for (int t = 0; t < N; t++) { /* gather, inline */
        double acc = 0;
        for (int u = 0; u <= t; u++)
            for (int i = 0; i < D; i++)
                acc += exp(0.2 * kv[t * D + i] * kv[u * D + i]);
        out[t] = acc;
    }
    for (int k = 0; k < N * D; k++)
        kv[k] = out[k % N] * x[k]; /* kv overwritten: the loads above are taped */
    for (int k = 0; k < N * D; k++)
        total += 0.01 * kv[k] * kv[k];
    free(kv);
    free(out);
    return total;
}

int main(void) {
    double x[N * D], dx[N * D] = {0};
    for (int k = 0; k < N * D; k++)
        x[k] = 0.4 + 0.07 * k * ((k & 1) ? -1 : 1);
    __enzyme_autodiff((void *)objective, enzyme_dup, x, dx);
    for (int k = 0; k < N * D; k++) {
        double h = 1e-6 * fmax(1.0, fabs(x[k])), c[N * D];
        for (int j = 0; j < N * D; j++) c[j] = x[j];
        c[k] = x[k] + h;
        double up = objective(c);
        c[k] = x[k] - h;
        double down = objective(c);
        printf("grad dx[%d] %.17g %.17g\n", k, dx[k], (up - down) / (2 * h));
    }
    return 0;
}
