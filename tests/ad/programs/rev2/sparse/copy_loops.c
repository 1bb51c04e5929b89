// Copy and clear loops over __enzyme_todense views, which LLVM turns into memcpy and
// memset before AD: they become element loops of the view's load and store calls.
// A diagonal-plus-rank-one matrix (d, u) is read row by row into a local buffer
// (memcpy from the view), a scratch view over a buffer is cleared (memset) and filled;
// the gradient flows to d and u through the load calls. Reference: central finite
// differences.
// tol: rel=1e-6 abs=1e-8
// grads: 8
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);
double *__enzyme_todense(void *, void *, ...);

enum { N = 4 };

/* A_ij = d_i [i == j] + u_i u_j */
static double dpr_load(int64_t offset, const double *d, const double *u) {
    int64_t k = offset / 8, i = k / N, j = k % N;
    return (i == j ? d[i] : 0.0) + u[i] * u[j];
}
static void dpr_store(double v, int64_t offset, const double *d, const double *u) {
    (void)v, (void)offset, (void)d, (void)u;
}

/* a scratch vector stored at twice its value */
static double twice_load(int64_t offset, double *buf) { return 0.5 * buf[offset / 8]; }
static void twice_store(double v, int64_t offset, double *buf) { buf[offset / 8] = 2.0 * v; }

__attribute__((noinline)) static void copy_row(double *restrict dst, const double *restrict src, int n) {
    for (int j = 0; j < n; j++)
        dst[j] = src[j];
}

__attribute__((noinline)) static void clear(double *x, int n) {
    for (int j = 0; j < n; j++)
        x[j] = 0.0;
}

static void energy(const double *d, const double *u, double *out) {
    const double *a = __enzyme_todense((void *)dpr_load, (void *)dpr_store, d, u);
    double buf[N];
    double *scratch = __enzyme_todense((void *)twice_load, (void *)twice_store, buf);
    clear(scratch, N);
    double e = 0.0;
    for (int i = 0; i < N; i++) {
        double row[N];
        copy_row(row, a + i * N, N);
        for (int j = 0; j < N; j++) {
            scratch[j] += row[j] * (j + 1);
            e += row[j] * row[j] * (i + 1);
        }
    }
    for (int j = 0; j < N; j++)
        e += sin(scratch[j]);
    *out = e;
}

static double primal(const double *d, const double *u) {
    double e;
    energy(d, u, &e);
    return e;
}

int main(void) {
    double d[N] = {1.0, -0.5, 2.0, 0.3}, u[N] = {0.2, 0.7, -0.4, 1.1};
    double dd[N] = {0}, du[N] = {0}, e = 0.0, de = 1.0;
    __enzyme_autodiff((void *)energy, enzyme_dup, d, dd, enzyme_dup, u, du, enzyme_dup, &e, &de);
    double *vars[2] = {d, u}, *grads[2] = {dd, du};
    const char *names[2] = {"d", "u"};
    for (int v = 0; v < 2; v++)
        for (int k = 0; k < N; k++) {
            double save = vars[v][k], h = 1e-6 * (1.0 + fabs(save));
            vars[v][k] = save + h;
            double up = primal(d, u);
            vars[v][k] = save - h;
            double down = primal(d, u);
            vars[v][k] = save;
            printf("grad %s[%d] %.17g %.17g\n", names[v], k, grads[v][k], (up - down) / (2 * h));
        }
    return 0;
}
