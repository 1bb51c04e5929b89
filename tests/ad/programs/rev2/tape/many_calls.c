// One gradient called 2000 times in a loop (caches are allocated and freed per
// call: a leak or a stale arena would show up as wrong values or a crash), each
// checked against the analytic derivative; the printed lines are the sums.
// tol: rel=1e-12 abs=1e-12
// grads: 3
#include <math.h>
#include <stdio.h>

extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);

enum { N = 3 };

/* y = y * x[k] + sin(y), k = i mod N, for i < m: y is overwritten, so cached */
__attribute__((noinline)) double chain(const double *x, int m) {
    double y = 1.0;
    for (int i = 0; i < m; i++)
        y = y * x[i % N] + sin(y);
    return y;
}

static void chain_ref(const double *x, int m, double *g) {
    double y = 1.0, dy[N] = {0};
    for (int i = 0; i < m; i++) {
        int k = i % N;
        double scale = x[k] + cos(y);
        for (int j = 0; j < N; j++) dy[j] *= scale;
        dy[k] += y;
        y = y * x[k] + sin(y);
    }
    for (int j = 0; j < N; j++) g[j] = dy[j];
}

int main(int argc, char **argv) {
    (void)argv;
    double sum[N] = {0}, ref[N] = {0};
    for (int call = 0; call < 2000; call++) {
        int m = 5 + call % 7 + argc - 1;
        double x[N] = {0.5 + 0.0001 * call, -0.3, 0.8 - 0.0001 * call}, dx[N] = {0}, g[N];
        __enzyme_autodiff((void *)chain, enzyme_dup, x, dx, enzyme_const, m);
        chain_ref(x, m, g);
        for (int j = 0; j < N; j++) { sum[j] += dx[j]; ref[j] += g[j]; }
    }
    for (int j = 0; j < N; j++) printf("grad sum_dx[%d] %.17g %.17g\n", j, sum[j], ref[j]);
    return 0;
}
