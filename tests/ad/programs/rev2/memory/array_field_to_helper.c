// A struct's array field passed to helpers that index it (`sum(t.v, t.n)`), beside
// an int and a pointer, in a local copy. The helper's pointer walks an array from
// its start, so it says "every element from here on is a double"; that fact
// belongs to v's four elements, not to the int before them or the pointer after
// them (type analysis once spread it over the whole struct and refused the copy;
// Enzyme passes). Also the helper that writes through the field's pointer.
// Reference: analytic. f = (sum_i v_i^2) * w0 + sum_i 2 v_i (after v_i *= 1 + i/8)
// tol: rel=1e-12 abs=1e-12
// grads: 5
#include <stdio.h>
#include <string.h>

extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);

struct S { int n; double v[4]; double *w; };

__attribute__((noinline)) static double sum_squares(const double *v, int n) {
    double r = 0;
    for (int i = 0; i < n; i++) r += v[i] * v[i];
    return r;
}

__attribute__((noinline)) static void scale(double *v, int n) {
    for (int i = 0; i < n; i++) v[i] *= 1.0 + 0.125 * i;
}

__attribute__((noinline)) static double twice_sum(const double *v, int n) {
    double r = 0;
    for (int i = 0; i < n; i++) r += 2 * v[i];
    return r;
}

double f(const struct S *s) {
    struct S t;
    memcpy(&t, s, sizeof t);
    double a = sum_squares(t.v, t.n) * t.w[0];
    scale(t.v, t.n);
    return a + twice_sum(t.v, t.n);
}

int main(void) {
    double w[1] = {1.5}, dw[1] = {0};
    struct S s = {4, {1.0, -2.0, 0.5, 3.0}, w}, ds = {0, {0}, dw};
    __enzyme_autodiff((void *)f, enzyme_dup, &s, &ds);
    double sq = 0;
    for (int i = 0; i < 4; i++) {
        printf("grad v[%d] %.17g %.17g\n", i, ds.v[i], 2 * s.v[i] * w[0] + 2 * (1.0 + 0.125 * i));
        sq += s.v[i] * s.v[i];
    }
    printf("grad w %.17g %.17g\n", dw[0], sq);
    return 0;
}
