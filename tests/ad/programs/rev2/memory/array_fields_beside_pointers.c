// Structs holding fixed arrays beside pointers and integers, copied whole and read
// at run-time indices. A variable index stays inside its array: type analysis once
// related it to the whole object modulo the element size, so the integer count and
// the pointer after `v[4]` folded into v's doubles ("an array of records holding
// both pointers and floating-point values", a located error where Enzyme passes),
// and `dims[i]` beside `x` made every slot of the struct a pointer to doubles.
// Reference: analytic. f = sum_i v_i^2 w_i + sum_i w_i vals_i dims_i
//                          + x0 * sum_i dims_i + sum_ij m_ij m_ij * (i + 1) * scale[0]
// tol: rel=1e-12 abs=1e-12
// grads: 21
#include <stdio.h>
#include <string.h>

extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);

struct counted { int n; double v[4]; double *w; };            /* array between an int and a pointer */
struct shaped { double *w; long dims[4]; double vals[4]; };   /* integer array after a pointer */
struct header { double *x; long dims[3]; };                   /* read through an argument only */
struct mat { double m[3][3]; double *scale; };                /* 2-D array, flattened index */

__attribute__((noinline)) static double counted_sum(const struct counted *s) {
    struct counted t;
    memcpy(&t, s, sizeof t);
    double r = 0;
    for (int i = 0; i < t.n; i++) r += t.v[i] * t.v[i] * t.w[i];
    return r;
}

__attribute__((noinline)) static double shaped_sum(const struct shaped *s, int n) {
    struct shaped c = *s;
    double r = 0;
    for (int i = 0; i < n; i++) r += c.w[i] * c.vals[i] * (double)c.dims[i];
    return r;
}

__attribute__((noinline)) static double header_sum(const struct header *h, int n) {
    double r = 0;
    for (int i = 0; i < n; i++) r += h->x[0] * (double)h->dims[i];
    return r;
}

__attribute__((noinline)) static double mat_sum(const struct mat *a) {
    struct mat c = *a;
    double r = 0;
    for (int k = 0; k < 9; k++) r += c.m[k / 3][k % 3] * c.m[k / 3][k % 3] * (k / 3 + 1) * c.scale[0];
    return r;
}

struct all { struct counted *c; struct shaped *s; struct header *h; struct mat *m; };

double f(struct all *a) {
    return counted_sum(a->c) + shaped_sum(a->s, 4) + header_sum(a->h, 3) + mat_sum(a->m);
}

int main(void) {
    double w[4] = {1.5, -2.0, 0.5, 3.0}, dw[4] = {0};
    double ws[4] = {0.25, 1.0, -1.5, 2.0}, dws[4] = {0};
    double x[1] = {1.25}, dx[1] = {0};
    double sc[1] = {0.75}, dsc[1] = {0};
    struct counted c = {3, {1.0, -2.0, 0.5, 7.0}, w}, dc = {0, {0}, dw};
    struct shaped s = {ws, {1, 2, 3, 4}, {0.5, 1.5, -2.5, 3.5}}, ds = {dws, {0}, {0}};
    struct header h = {x, {2, -1, 5}}, dh = {dx, {0}};
    struct mat m = {{{1, 2, 3}, {-1, 0.5, 2}, {4, -3, 1.5}}, sc}, dm = {{{0}}, dsc};
    struct all a = {&c, &s, &h, &m}, da = {&dc, &ds, &dh, &dm};
    __enzyme_autodiff((void *)f, enzyme_dup, &a, &da);

    for (int i = 0; i < 4; i++)
        printf("grad c.v[%d] %.17g %.17g\n", i, dc.v[i], i < 3 ? 2 * c.v[i] * w[i] : 0.0);
    for (int i = 0; i < 4; i++)
        printf("grad w[%d] %.17g %.17g\n", i, dw[i], i < 3 ? c.v[i] * c.v[i] : 0.0);
    for (int i = 0; i < 4; i++)
        printf("grad s.vals[%d] %.17g %.17g\n", i, ds.vals[i], ws[i] * (double)s.dims[i]);
    for (int i = 0; i < 4; i++)
        printf("grad ws[%d] %.17g %.17g\n", i, dws[i], s.vals[i] * (double)s.dims[i]);
    printf("grad x[0] %.17g %.17g\n", dx[0], (double)(h.dims[0] + h.dims[1] + h.dims[2]));
    double mm = 0;
    for (int k = 0; k < 9; k++) mm += m.m[k / 3][k % 3] * m.m[k / 3][k % 3] * (k / 3 + 1);
    printf("grad scale %.17g %.17g\n", dsc[0], mm);
    for (int i = 0; i < 3; i++)
        printf("grad m[%d][1] %.17g %.17g\n", i, dm.m[i][1], 2 * m.m[i][1] * (i + 1) * sc[0]);
    return 0;
}
