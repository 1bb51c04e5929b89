// __enzyme_error_estimate on long double (x86_fp80: the floor is a 64-bit
// significand's ulp) and on GCC vector types (each lane its own error).
// tol: rel=1e-12 abs=0
// grads: 9
#include <stdio.h>
#include "errest.h"

long double __enzyme_error_estimate_l(void *, ...);
double __enzyme_error_estimate(void *, ...);

typedef double v2 __attribute__((vector_size(16)));

long double lmul(long double x, long double y) { return x * y; }

/* the product lane by lane, the lanes' sum */
double vdot(const v2 *p, const v2 *q) {
    v2 w = *p * *q;
    return w[0] + w[1];
}

static long double ulpl(long double r) {
    long double a = fabsl(r);
    return nextafterl(a, INFINITY) - a;
}

int main(void) {
    const long double xs[3] = {1.25L, -3.0e4L, 7.0e-3L};
    const long double es[3] = {0.0L, 1e-12L, 3e-17L};
    for (int k = 0; k < 3; k++) {
        long double x = xs[k], y = 0.3L - k, ex = es[k], ey = es[2 - k];
        long double r = x * y;
        long double ref = fmaxl(ulpl(r), fabsl(y * ex * x / r) + fabsl(x * ey * y / r));
        printf("grad long_double@%d %.21Lg %.21Lg\n", k, __enzyme_error_estimate_l((void *)lmul, x, ex, y, ey), ref);
        /* no input error: one ulp of a long double, 2^11 times finer than a double's */
        printf("grad long_double_floor@%d %.21Lg %.21Lg\n", k,
               __enzyme_error_estimate_l((void *)lmul, x, 0.0L, y, 0.0L), ulpl(r));
    }
    for (int k = 0; k < 3; k++) {
        v2 p = {1.5 + k, -0.25 * (k + 1)}, q = {2.0, 3.0e3 + k}, ep = {1e-15, 2e-13 * k}, eq = {0.0, 1e-10};
        double w0 = p[0] * q[0], w1 = p[1] * q[1], s = w0 + w1;
        double e0 = op_error(w0, through(q[0], ep[0], p[0], w0) + through(p[0], eq[0], q[0], w0));
        double e1 = op_error(w1, through(q[1], ep[1], p[1], w1) + through(p[1], eq[1], q[1], w1));
        double ref = op_error(s, through(1, e0, w0, s) + through(1, e1, w1, s));
        printf("grad vector@%d %.17g %.17g\n", k, __enzyme_error_estimate((void *)vdot, &p, &ep, &q, &eq), ref);
    }
    return 0;
}
