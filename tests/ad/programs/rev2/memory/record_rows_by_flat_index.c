// An array of records, each a pointer, a 2x3 matrix read by one flat index
// (m[j / 3][j % 3]), an int and a double, copied from one record. clang -O2 picks
// the matrix row with `select(j > 2, 32, 8)` on a pointer that walks the records:
// relating the column index to that row from the row's start folded the record's
// int into the matrix, the analysis typed the pointer field's shadow as a double,
// and the derivative crashed reading it (found by the random-program generator's
// record blocks, seed 900291).
// Reference: analytic. f = sum_k sum_j c_k(j) m_j p[0] + sum_k w n, with
// c_k(j) = 1 + 0.125 k when j == k (the scaled entry), else 1.
// tol: rel=1e-12 abs=1e-12
// grads: 8
#include <stdio.h>

extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);

struct rec { const double *p; double m[2][3]; int n; double w; };

double f(const double *x, const double *in) {
    struct rec r;
    r.p = x;
    r.n = 3;
    r.w = in[6];
    for (int i = 0; i < 6; i++) r.m[i / 3][i % 3] = in[i];
    struct rec rs[2];
    for (int k = 0; k < 2; k++) {
        rs[k] = r;
        rs[k].m[k / 3][k % 3] *= 1.0 + 0.125 * k;
    }
    double acc = 0.0;
    for (int k = 0; k < 2; k++) {
        for (int j = 0; j < 6; j++) acc += rs[k].m[j / 3][j % 3] * rs[k].p[0];
        acc += rs[k].w * rs[k].n;
    }
    return acc;
}

int main(void) {
    double x[1] = {0.75}, dx[1] = {0};
    double in[7] = {1.0, -2.0, 0.5, 3.0, 1.5, -0.25, 2.0}, din[7] = {0};
    __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_dup, in, din);
    double sum = 0;
    for (int j = 0; j < 6; j++) {
        double c = 2.0 + (j == 1 ? 0.125 : 0.0);
        printf("grad in[%d] %.17g %.17g\n", j, din[j], c * x[0]);
        sum += c * in[j];
    }
    printf("grad w %.17g %.17g\n", din[6], 2.0 * 3);
    printf("grad x %.17g %.17g\n", dx[0], sum);
    return 0;
}
