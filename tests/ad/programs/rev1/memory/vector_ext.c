// GCC vector extensions (vector_size 16 and 32): element-wise arithmetic,
// extractelement and a horizontal sum, all active.
// tol: rel=1e-12 abs=1e-14
// grads: 8
#include <stdio.h>

extern int enzyme_dup;
double __enzyme_autodiff(void *, ...);

typedef double v2d __attribute__((vector_size(16)));
typedef double v4d __attribute__((vector_size(32)));

double vsum(const double *in) {
    v2d a = {in[0], in[1]}, b = {in[2], in[3]};
    v2d c = a * b + a * a;
    v4d p = {in[4], in[5], in[6], in[7]};
    v4d q = p * p * p - p;
    return c[0] + 2.0 * c[1] + q[0] + q[1] + q[2] * q[3];
}

int main(void) {
    double in[8] = {1.0, 2.0, -1.5, 0.5, 0.8, -0.3, 1.2, 0.6}, d[8] = {0};
    __enzyme_autodiff((void *)vsum, enzyme_dup, in, d);
    double q2 = in[6] * in[6] * in[6] - in[6], q3 = in[7] * in[7] * in[7] - in[7];
    const double ref[8] = {
        in[2] + 2 * in[0], 2 * (in[3] + 2 * in[1]), in[0], 2 * in[1],
        3 * in[4] * in[4] - 1, 3 * in[5] * in[5] - 1,
        (3 * in[6] * in[6] - 1) * q3, (3 * in[7] * in[7] - 1) * q2};
    for (int i = 0; i < 8; i++) printf("grad d[%d] %.17g %.17g\n", i, d[i], ref[i]);
    return 0;
}
