// Vector reverse mode: enzyme_width, 3 and enzyme_dupv (one shadow buffer for the three
// lanes, lane k at k * stride bytes) give three rows of a Jacobian in one reverse pass:
// lane k's output shadow is seeded with e_k. The function has loops, malloc'd scratch
// overwritten in place (old values come from the tape), a noinline helper with a loop
// (its derivative carries the three lanes too) and writes its input in place.
// Reference: central finite differences of the primal; each lane is also compared with
// the width-1 gradient of the same seed.
// tol: rel=1e-6 abs=1e-8
// grads: 72
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern int enzyme_width, enzyme_dupv, enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);

#define N 4
#define W 3

__attribute__((noinline)) double smooth(const double *a, int n) {
    double s = 0;
    for (int i = 0; i < n; i++) s += sin(a[i]) * a[i];
    return s;
}

void model(double *x, double *y, int n) {
    double *tmp = malloc(n * sizeof(double));
    for (int i = 0; i < n; i++) tmp[i] = x[i] * x[i];
    double s = smooth(tmp, n);
    for (int it = 0; it < 3; it++)
        for (int i = 0; i < n; i++) tmp[i] = tmp[i] * cos(tmp[i]) + 0.1 * s;
    for (int i = 0; i < n; i++) y[i] = tmp[i] + x[(i + 1) % n] * s;
    for (int i = 0; i < n; i++) x[i] = y[i] * 0.5;  /* overwrites the input */
    free(tmp);
}

static double output(const double *x0, int row) {
    double x[N], y[N];
    memcpy(x, x0, sizeof x);
    model(x, y, N);
    return y[row];
}

int main(void) {
    const double x0[N] = {0.3, -0.8, 1.1, 0.45};
    double x[N], y[N], dx[W][N] = {{0}}, dy[W][N] = {{0}};
    for (int k = 0; k < W; k++) dy[k][k] = 1.0;
    memcpy(x, x0, sizeof x);
    __enzyme_autodiff((void *)model, enzyme_width, W, enzyme_dupv, sizeof(double) * N, x, dx[0],
                      enzyme_dupv, sizeof(double) * N, y, dy[0], enzyme_const, N);
    for (int k = 0; k < W; k++) {
        double d1[N] = {0}, s1[N] = {0}, xs[N], ys[N];
        s1[k] = 1.0;
        memcpy(xs, x0, sizeof xs);
        __enzyme_autodiff((void *)model, enzyme_dup, xs, d1, enzyme_dup, ys, s1, enzyme_const, N);
        for (int j = 0; j < N; j++) {
            double h = 1e-6 * (fabs(x0[j]) > 1 ? fabs(x0[j]) : 1), xp[N], xm[N];
            memcpy(xp, x0, sizeof xp);
            memcpy(xm, x0, sizeof xm);
            xp[j] += h;
            xm[j] -= h;
            double fd = (output(xp, k) - output(xm, k)) / (2 * h);
            printf("grad lane%d.dx[%d] %.17g %.17g\n", k, j, dx[k][j], fd);
            printf("grad lane%d.dx[%d].width1 %.17g %.17g\n", k, j, dx[k][j], d1[j]);
            printf("grad lane%d.y[%d] %.17g %.17g\n", k, j, y[j], ys[j]);
            printf("grad lane%d.x[%d] %.17g %.17g\n", k, j, x[j], xs[j]);
            printf("grad lane%d.dy[%d] %.17g %.17g\n", k, j, dy[k][j], s1[j]);
            printf("grad lane%d.zero[%d] %.17g %.17g\n", k, j, k == j ? 0.0 : dy[k][j], 0.0);
        }
    }
    return 0;
}
