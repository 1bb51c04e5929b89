// Vector reverse mode through noinline helpers that return pointers into active
// memory: an address into the caller's array (its shadow in each lane comes back from
// the augmented call, one per lane) and a malloc'd block the helper fills (a shadow
// block per lane, freed by the caller's reverse). The input is updated in place.
// Lanes seeded with e_k on the output. Reference: central finite differences, and the
// width-1 gradients of the same seeds.
// tol: rel=1e-6 abs=1e-8
// grads: 32
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern int enzyme_width, enzyme_dupv, enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);

#define N 4
#define W 2

__attribute__((noinline)) double *pick(double *v, int i) { return v + i; }

__attribute__((noinline)) double *scaled_squares(const double *v, int n, double c) {
    double *p = malloc(n * sizeof(double));
    for (int i = 0; i < n; i++) p[i] = c * v[i] * v[i];
    return p;
}

void f(double *v, double *out, int n) {
    double *m = pick(v, 1);
    *m = *m * sin(*m);
    double *p = scaled_squares(v, n, 0.5);
    for (int i = 0; i < n; i++) out[i] = p[i] * v[(i + 1) % n] + p[(i + 2) % n];
    free(p);
}

static double output(const double *v0, int row) {
    double v[N], out[N];
    memcpy(v, v0, sizeof v);
    f(v, out, N);
    return out[row];
}

int main(void) {
    const double v0[N] = {0.6, 1.3, -0.4, 0.9};
    double v[N], out[N], dv[W][N] = {{0}}, dout[W][N] = {{0}};
    for (int k = 0; k < W; k++) dout[k][k + 1] = 1.0;
    memcpy(v, v0, sizeof v);
    __enzyme_autodiff((void *)f, enzyme_width, W, enzyme_dupv, sizeof dv[0], v, dv[0],
                      enzyme_dupv, sizeof dout[0], out, dout[0], enzyme_const, N);
    for (int k = 0; k < W; k++) {
        double d1[N] = {0}, s1[N] = {0}, v1[N], o1[N];
        s1[k + 1] = 1.0;
        memcpy(v1, v0, sizeof v1);
        __enzyme_autodiff((void *)f, enzyme_dup, v1, d1, enzyme_dup, o1, s1, enzyme_const, N);
        for (int j = 0; j < N; j++) {
            double h = 1e-6, vp[N], vm[N];
            memcpy(vp, v0, sizeof vp);
            memcpy(vm, v0, sizeof vm);
            vp[j] += h;
            vm[j] -= h;
            printf("grad lane%d.dv[%d] %.17g %.17g\n", k, j, dv[k][j], (output(vp, k + 1) - output(vm, k + 1)) / (2 * h));
            printf("grad lane%d.dv[%d].width1 %.17g %.17g\n", k, j, dv[k][j], d1[j]);
            printf("grad lane%d.v[%d] %.17g %.17g\n", k, j, v[j], v1[j]);
            printf("grad lane%d.out[%d] %.17g %.17g\n", k, j, out[j], o1[j]);
        }
    }
    return 0;
}
