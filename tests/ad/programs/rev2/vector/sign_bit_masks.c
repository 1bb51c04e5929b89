// Signs flipped, cleared and set with bitwise masks on the bits of double vectors,
// through lane shuffles, as SIMD code does (Eigen's 4x4 inverse negates lanes with
// _mm_xor_pd and a sign mask): the integer steps between the bitcasts become
// shuffles of doubles and per-lane fneg/fabs (`synth/float_bit_ops.py`). The
// vector forms were a silent wrong gradient (the sign flips were lost through the
// shuffle); other integer arithmetic on float bits stays a located error. Reverse
// and forward mode.
// Reference: central finite differences.
// tol: rel=1e-6 abs=1e-8
// grads: 10
#include <math.h>
#include <stdio.h>
#include <string.h>

extern int enzyme_dup;
void __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

typedef double v2d __attribute__((vector_size(16)));
typedef long v2l __attribute__((vector_size(16)));

#define N 5

double f(const double *x) {
    v2d a = {x[0], x[1]};
    v2l bits = (v2l)a;
    v2l both = __builtin_shufflevector(bits, bits, 0, 0);
    v2l flip = {0, (long)0x8000000000000000UL};
    v2d negated = (v2d)(both ^ flip);  // {x0, -x0}
    v2l swapped = __builtin_shufflevector(bits, bits, 1, 0);
    v2l keep_sign_off = {(long)0x7fffffffffffffffL, -1L};
    v2d absolute = (v2d)(swapped & keep_sign_off);  // {|x1|, x0}
    v2l set_sign = {0, (long)0x8000000000000000UL};
    v2d minus_abs = (v2d)(swapped | set_sign);  // {x1, -|x0|}
    return negated[0] * x[2] + negated[1] * negated[1] * x[3] + sin(negated[1]) + 3 * absolute[0]
           + absolute[1] * x[4] + minus_abs[1] * minus_abs[1] * minus_abs[0] + exp(minus_abs[1]);
}

int main(void) {
    double x[N] = {1.5, -2.0, 0.7, 1.3, -0.4}, dx[N] = {0};
    __enzyme_autodiff((void *)f, enzyme_dup, x, dx);
    for (int i = 0; i < N; i++) {
        double e[N] = {0}, xp[N], xm[N], h = 1e-6;
        memcpy(xp, x, sizeof x);
        memcpy(xm, x, sizeof x);
        xp[i] += h;
        xm[i] -= h;
        double fd = (f(xp) - f(xm)) / (2 * h);
        e[i] = 1;
        printf("grad rev_x%d %.17g %.17g\n", i, dx[i], fd);
        printf("grad fwd_x%d %.17g %.17g\n", i, __enzyme_fwddiff((void *)f, enzyme_dup, x, e), fd);
    }
    return 0;
}
