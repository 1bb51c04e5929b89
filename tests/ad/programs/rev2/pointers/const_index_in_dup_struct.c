// A view struct (enzyme_dup) gets a data pointer (enzyme_dup) and an index array
// (enzyme_const) from a setter that is not inlined. The index array has no shadow,
// which is fine: only integers are read through it. Gradient of
// sum_k x[idx[k]]^2 * c: 2 c x[j] times how often j is indexed (analytic).
// tol: rel=1e-12 abs=1e-14
// grads: 5
#include <stdio.h>

extern int enzyme_const, enzyme_dup;
void __enzyme_autodiff(void *, ...);

struct View { double *vals; const int *idx; int n; double c; };

__attribute__((noinline)) void bind(struct View *v, double *vals, const int *idx, int n) {
    v->vals = vals;
    v->idx = idx;
    v->n = n;
    v->c = 1.5;
}

double gathered_energy(struct View *v, double *vals, const int *idx, int n) {
    bind(v, vals, idx, n);
    double s = 0;
    for (int k = 0; k < v->n; k++) s += v->c * v->vals[v->idx[k]] * v->vals[v->idx[k]];
    return s;
}

int main(void) {
    enum { N = 5, K = 6 };
    double x[N] = {0.5, -1.0, 2.0, 3.5, -0.25}, dx[N] = {0};
    const int idx[K] = {3, 0, 3, 4, 4, 4};
    struct View v, dv = {0};
    __enzyme_autodiff((void *)gathered_energy, enzyme_dup, &v, &dv, enzyme_dup, x, dx,
                      enzyme_const, idx, K);
    for (int j = 0; j < N; j++) {
        int count = 0;
        for (int k = 0; k < K; k++) count += idx[k] == j;
        printf("grad dx[%d] %.17g %.17g\n", j, dx[j], 2 * 1.5 * x[j] * count);
    }
    return 0;
}
