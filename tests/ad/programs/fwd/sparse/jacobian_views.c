// __enzyme_todense in forward mode, two ways. (1) A Jacobian by columns: the tangent
// of x is a view reading the unit vector e_i (nothing stored), the tangent of the
// residuals a view writing column i of a dense row-major matrix; both are handed to
// __enzyme_fwddiff and lowered inside its derivative. (2) A view made inside the
// differentiated function (a sparse vector read by dense code): its loads are calls of
// the load function, so the tangent flows from the stored values.
// References: analytic Jacobian; central finite difference of the directional derivative.
// tol: rel=1e-6 abs=1e-9
// grads: 17
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

extern int enzyme_dup, enzyme_dupnoneed, enzyme_const;
void __enzyme_fwddiff(void *, ...);
double __enzyme_fwddiff_value(void *, ...);
double *__enzyme_todense(void *, void *, ...);

enum { N = 4, NNZ = 3 };

static double unit_load(int64_t offset, int64_t i) { return offset / 8 == i ? 1.0 : 0.0; }
static void no_store(double v, int64_t offset, int64_t i) { (void)v, (void)offset, (void)i; abort(); }

static double column_load(int64_t offset, double *jac, int64_t i) { return jac[offset / 8 * N + i]; }
static void column_store(double v, int64_t offset, double *jac, int64_t i) { jac[offset / 8 * N + i] = v; }

/* r_j = x_j^2 x_{j+1} + sin(x_j) (cyclic) */
static void residuals(const double *x, double *r) {
    for (int j = 0; j < N; j++)
        r[j] = x[j] * x[j] * x[(j + 1) % N] + sin(x[j]);
}

static double sparse_load(int64_t offset, const int *idx, double *val) {
    for (int k = 0; k < NNZ; k++)
        if (idx[k] == offset / 8)
            return val[k];
    return 0.0;
}
static void sparse_store(double v, int64_t offset, const int *idx, double *val) {
    (void)v, (void)offset, (void)idx, (void)val;
    abort();
}

static double smooth_norm(double *val, const int *idx) {
    const double *x = __enzyme_todense((void *)sparse_load, (void *)sparse_store, idx, val);
    double s = 0.0;
    for (int i = 0; i < 6; i++)
        s += x[i] * x[i] * (1.0 + 0.1 * i);
    return sqrt(s + 1.0);
}

int main(void) {
    double x[N] = {0.3, -1.2, 0.8, 2.0}, r[N], jac[N * N] = {0};
    for (int64_t i = 0; i < N; i++) {
        double *dx = __enzyme_todense((void *)unit_load, (void *)no_store, i);
        double *dr = __enzyme_todense((void *)column_load, (void *)column_store, jac, i);
        __enzyme_fwddiff((void *)residuals, enzyme_dup, x, dx, enzyme_dupnoneed, r, dr);
    }
    for (int j = 0; j < N; j++)
        for (int i = 0; i < N; i++) {
            int next = (j + 1) % N;
            double ref = (i == j ? 2 * x[j] * x[next] + cos(x[j]) : 0.0) + (i == next ? x[j] * x[j] : 0.0);
            printf("grad J[%d][%d] %.17g %.17g\n", j, i, jac[j * N + i], ref);
        }

    const int idx[NNZ] = {1, 2, 5};
    double val[NNZ] = {0.5, -0.9, 1.4}, dir[NNZ] = {1.0, -2.0, 0.5};
    double tangent = __enzyme_fwddiff_value((void *)smooth_norm, enzyme_dup, val, dir, enzyme_const, idx);
    double h = 1e-6, up[NNZ], down[NNZ];
    for (int k = 0; k < NNZ; k++)
        up[k] = val[k] + h * dir[k], down[k] = val[k] - h * dir[k];
    printf("grad dir %.17g %.17g\n", tangent, (smooth_norm(up, idx) - smooth_norm(down, idx)) / (2 * h));
    return 0;
}
