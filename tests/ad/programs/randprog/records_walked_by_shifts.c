// records copied into an array, their 2x2 matrix read as m[j / 2][j % 2] through a
// pointer stepping over the records: the optimizer's j >> 1 was no known index range,
// the walk unbounded, and without TBAA the record copy's adjoint took the int and
// pointer fields for doubles (the destination was only ever stored doubles directly):
// shadow pointer bits added as doubles, a hang
// Reduced from tests/randprog seed 929996 (found at -O2 -fno-strict-aliasing). Forward and reverse
// mode against finite differences (Ridders) at the failing point, and the
// primal results of the derivative calls against the plain call.
// tol: rel=1e-6 abs=1.4e-06
// grads: 8
// flags: -fno-strict-aliasing
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern int enzyme_dup, enzyme_const, enzyme_out;

static __attribute__((noinline)) void rp929996_axpy5(double *dst, const double *src, int m, double c) {
    for (int i = 0; i < m; i++)
        dst[i] = 0.5 * dst[i] + c * sin(src[i]);
}
void rp929996_h14(double a, double b, double *o1, double *o2) {
    *o1 = 0.781 * sin(a) * b;
    *o2 = a * -0.77 + cos(b);
}
struct rp929996_R17 { double m[2][2]; double w; int n; const double *p; };
static void rp929996(const double *x, int n, double *y) {
    double in1 = x[0];
    double b2[5] = {(in1 - in1), (in1 - in1), (in1 + in1), in1, (in1 * 1.22)};
    double *p3 = b2 + 0;
    double *q4 = b2 + 2;
    rp929996_axpy5(p3, q4, 3, in1);
    double v6 = 0.969 * b2[1] + (b2[1] - -0.558);
    double b7[4];
    for (int i8 = 0; i8 < 4; i8++) {
        b7[i8] = in1;
    }
    double acc9 = in1;
    for (int i10 = 0; i10 < 11; i10++) {
        acc9 = 0.74 * acc9 + 0.26 * in1;
    }
    double v11 = ((acc9 * v6) * (0.908 + acc9));
    double acc12 = in1;
    int i13 = n;
    while (i13 > 0) {
        acc12 = 0.44 * acc12 + 0.56 * b2[i13 % 5];
        i13 -= 2;
    }
    double o15, o16;
    rp929996_h14(sin((acc12 - acc9)), sin(acc12), &o15, &o16);
    struct rp929996_R17 r18;
    r18.n = 2; r18.p = b2; r18.w = (o16 + in1);
    for (int i19 = 0; i19 < 4; i19++) {
        r18.m[i19 / 2][i19 % 2] = o15 * (0.5 + 0.25 * i19);
    }
    struct rp929996_R17 ra20[2];
    for (int k21 = 0; k21 < 2; k21++) {
        ra20[k21] = r18;
        ra20[k21].m[(k21 % 4) / 2][(k21 % 4) % 2] *= 1.0 + 0.125 * k21;
    }
    double acc23 = 0.0;
    for (int k21 = 0; k21 < 2; k21++) {
        for (int j22 = 0; j22 < 4; j22++) {
            acc23 += ra20[k21].m[j22 / 2][j22 % 2] * ra20[k21].p[j22 % 5];
        }
        acc23 += ra20[k21].w * ra20[k21].n;
    }
    double rv24 = (acc23 / 2.0) * 0.031;
    double v25 = (0.371 * o15 + o16);
    y[0] = (v25 * o16) + -0.713 * rv24;
    y[1] = (0.763 * (v25 + v25) + o15) + 0.622 * acc12;
}

void __enzyme_fwddiff_rp929996(void *, ...);
void __enzyme_autodiff_rp929996(void *, ...);
static void rp929996__eval(const double *u, int n, double *o) {
    double x[1];
    memcpy(x, u, sizeof x);
    double y[2] = {0.0, 0.0};
    rp929996(x, n, y);
    memcpy(o, y, sizeof y);
    (void)n;
}

static void rp929996__fwd(const double *u, const double *du, int n, double *o, double *dout) {
    double x[1], dx[1] = {0};
    memcpy(x, u, sizeof x);
    double y[2] = {0.0, 0.0}, dy[2] = {0};
    memcpy(dx, du, sizeof dx);
    __enzyme_fwddiff_rp929996((void *)rp929996, enzyme_dup, x, dx, enzyme_const, n, enzyme_dup, y, dy);
    memcpy(o, y, sizeof y);
    memcpy(dout, dy, sizeof dy);
    (void)n;
}

static void rp929996__rev(const double *u, const double *w, int n, double *o, double *gu) {
    double x[1], dx[1] = {0};
    memcpy(x, u, sizeof x);
    double y[2] = {0.0, 0.0}, dy[2] = {0};
    memcpy(dy, w, sizeof dy);
    __enzyme_autodiff_rp929996((void *)rp929996, enzyme_dup, x, dx, enzyme_const, n, enzyme_dup, y, dy);
    memcpy(gu, dx, sizeof dx);
    memcpy(o, y, sizeof y);
    (void)n; (void)w;
}


/* d o / d u_j by Ridders' extrapolation of central differences (as the tester) */
static void ridders(const double *u, int n, int j, double *best) {
    double a[10][10][2], err[2], up[1], op[2], om[2], h = 0.01;
    for (int i = 0; i < 2; i++)
        err[i] = INFINITY;
    for (int k = 0; k < 10; k++, h /= 1.4) {
        memcpy(up, u, sizeof up);
        up[j] = u[j] + h;
        rp929996__eval(up, n, op);
        up[j] = u[j] - h;
        rp929996__eval(up, n, om);
        for (int i = 0; i < 2; i++) {
            a[0][k][i] = (op[i] - om[i]) / (2 * h);
            double fac = 1.96;
            for (int m = 1; m <= k; m++, fac *= 1.96) {
                a[m][k][i] = (a[m - 1][k][i] * fac - a[m - 1][k - 1][i]) / (fac - 1);
                double t = fmax(fabs(a[m][k][i] - a[m - 1][k][i]), fabs(a[m][k][i] - a[m - 1][k - 1][i]));
                if (t <= err[i])
                    err[i] = t, best[i] = a[m][k][i];
            }
        }
    }
}

int main(void) {
    const double u[1] = {-0.4028157051944513};
    const int n = 6;
    double o[2], op[2], t[1], d[2], w[2], g[1], g_ret[1], col[2];
    double fd[2][1];
    rp929996__eval(u, n, o);
    for (int j = 0; j < 1; j++) {
        ridders(u, n, j, col);
        for (int i = 0; i < 2; i++)
            fd[i][j] = col[i];
    }
    for (int j = 0; j < 1; j++) { /* forward mode: column j */
        memset(t, 0, sizeof t);
        t[j] = 1.0;
        rp929996__fwd(u, t, n, op, d);
        for (int i = 0; i < 2; i++)
            printf("grad fwd.o%d.u%d %.17g %.17g\n", i, j, d[i], fd[i][j]);
        for (int i = 0; j == 0 && i < 2; i++)
            printf("grad fwd.primal.y%d %.17g %.17g\n", i, op[i], o[i]);
    }
    memset(g_ret, 0, sizeof g_ret);
    if (0) { /* the result is always seeded with 1: its gradient alone */
        memset(w, 0, sizeof w);
        rp929996__rev(u, w, n, op, g_ret);
    }
    for (int s = 0; s < 2; s++) { /* reverse mode: row s */
        memset(w, 0, sizeof w);
        w[s] = 1.0;
        rp929996__rev(u, w, n, op, g);
        for (int j = 0; j < 1; j++)
            printf("grad rev.o%d.u%d %.17g %.17g\n", s, j, s < 2 ? g[j] - g_ret[j] : g[j], fd[s][j]);
        for (int i = 0; s == 0 && i < 2; i++)
            printf("grad rev.primal.y%d %.17g %.17g\n", i, op[i], o[i]);
    }
    return 0;
}
