// A noinline function returning a struct (two doubles in registers, and a
// three-double struct returned through sret memory), used by the active code.
// tol: rel=1e-12 abs=1e-14
// grads: 3
#include <math.h>
#include <stdio.h>

extern int enzyme_dup;
double __enzyme_autodiff(void *, ...);

typedef struct { double s, c; } SC;
typedef struct { double x, y, z; } V3;

__attribute__((noinline)) SC sincos2(double t) {
    SC r = {sin(t), cos(t)};
    return r;
}

__attribute__((noinline)) V3 cross(V3 a, V3 b) {
    V3 r = {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
    return r;
}

double f(const double *p) {
    SC a = sincos2(p[0]);
    V3 u = {a.s, a.c, p[1]}, v = {p[2], 1.0, a.s * p[1]};
    V3 w = cross(u, v);
    return w.x * w.x + w.y + 2.0 * w.z;
}

int main(void) {
    double p[3] = {0.6, -1.2, 0.9}, dp[3] = {0};
    __enzyme_autodiff((void *)f, enzyme_dup, p, dp);
    double s = sin(p[0]), c = cos(p[0]), b = p[1], q = p[2];
    /* u = (s, c, b), v = (q, 1, s b): w.x = c s b - b, w.y = b q - s s b, w.z = s - c q */
    double wx = c * s * b - b;
    double d0 = 2 * wx * ((c * c - s * s) * b) + (-2 * s * c * b) + 2 * (c + s * q);
    double d1 = 2 * wx * (c * s - 1) + (q - s * s);
    double d2 = b + 2 * (-c);
    printf("grad dp0 %.17g %.17g\n", dp[0], d0);
    printf("grad dp1 %.17g %.17g\n", dp[1], d1);
    printf("grad dp2 %.17g %.17g\n", dp[2], d2);
    return 0;
}
