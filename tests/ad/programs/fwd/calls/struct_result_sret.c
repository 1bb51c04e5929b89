// A function returning a struct too large for registers (through a hidden sret
// pointer) in forward mode: the entry point returns the tangent struct, with
// enzyme_primal_return a struct of result and tangent, with enzyme_width 2 two
// tangent structs. Analytic references.
// tol: rel=1e-12 abs=1e-14
// grads: 15
#include <math.h>
#include <stdio.h>

typedef struct { double a, b, c; } V3;
typedef struct { V3 result, tangent; } V3WithPrimal;
typedef struct { V3 t0, t1; } V3Lanes;

extern int enzyme_primal_return, enzyme_width, enzyme_dup;
V3 fwd(void *, ...) __asm__("__enzyme_fwddiff");
V3WithPrimal fwd_primal(void *, ...) __asm__("__enzyme_fwddiff");
V3Lanes fwd_lanes(void *, ...) __asm__("__enzyme_fwddiff");

V3 curve(double x, const double *p) {
    V3 r = {x * p[0], x * x * p[1], sin(x) * p[0]};
    return r;
}

static void show(const char *what, V3 got, V3 want) {
    printf("grad %s.a %.17g %.17g\n", what, got.a, want.a);
    printf("grad %s.b %.17g %.17g\n", what, got.b, want.b);
    printf("grad %s.c %.17g %.17g\n", what, got.c, want.c);
}

int main(void) {
    double x = 0.7, p[2] = {2.0, 3.0}, dp[2] = {0.0, 1.0}, dp2[2] = {1.0, 0.0};
    V3 along_x_p1 = {p[0], 2 * x * p[1] + x * x, cos(x) * p[0]};  // dx = 1, dp = (0, 1)
    V3 along_p0 = {x, 0.0, sin(x)};                                  // dx = 0, dp = (1, 0)

    show("tangent", fwd((void *)curve, x, 1.0, p, dp), along_x_p1);

    V3WithPrimal both = fwd_primal((void *)curve, enzyme_primal_return, x, 1.0, p, dp);
    show("with_primal.result", both.result, curve(x, p));
    show("with_primal.tangent", both.tangent, along_x_p1);

    V3Lanes lanes = fwd_lanes((void *)curve, enzyme_width, 2, x, 1.0, 0.0, enzyme_dup, p, dp, dp2);
    show("lane0", lanes.t0, along_x_p1);
    show("lane1", lanes.t1, along_p0);
    return 0;
}
