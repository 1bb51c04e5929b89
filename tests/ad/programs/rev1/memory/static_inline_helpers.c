// `static inline` helpers called from the differentiated function (inlined at -O2;
// the driver's pre-AD O2* pipeline inlines them at -O0 too), with a helper used twice.
// tol: rel=1e-12 abs=1e-14
// grads: 5
#include <math.h>
#include <stdio.h>

extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);

static inline double sq(double v) { return v * v; }
static inline double softplus(double v) { return log1p(exp(v)); }
static inline double dist2(const double *a, const double *b) {
    return sq(a[0] - b[0]) + sq(a[1] - b[1]);
}

double cost(const double *p, const double *q) {
    return softplus(dist2(p, q) - 1.0) + sq(p[0]) * q[1];
}

int main(void) {
    double p[2] = {0.4, -0.2}, q[2] = {1.0, 0.5}, dp[2] = {0}, dq[2] = {0};
    __enzyme_autodiff((void *)cost, enzyme_dup, p, dp, enzyme_dup, q, dq);
    double d2 = sq(p[0] - q[0]) + sq(p[1] - q[1]);
    double s = 1 / (1 + exp(-(d2 - 1))); /* softplus' */
    printf("grad dp0 %.17g %.17g\n", dp[0], s * 2 * (p[0] - q[0]) + 2 * p[0] * q[1]);
    printf("grad dp1 %.17g %.17g\n", dp[1], s * 2 * (p[1] - q[1]));
    printf("grad dq0 %.17g %.17g\n", dq[0], -s * 2 * (p[0] - q[0]));
    printf("grad dq1 %.17g %.17g\n", dq[1], -s * 2 * (p[1] - q[1]) + p[0] * p[0]);
    double p2[2] = {0, 0}, dp2[2] = {0, 0};
    __enzyme_autodiff((void *)cost, enzyme_dup, p2, dp2, enzyme_const, q);
    printf("grad dp0_at0 %.17g %.17g\n", dp2[0], 2 * (1 / (1 + exp(-(1.25 - 1)))) * (0 - 1.0));
    return 0;
}
