// A `void *` copy helper called with a record holding a pointer and a record of another
// layout: the callers' common facts (doubles at 0 and 8) were taken as doubles every 8
// over the whole copy, and the reverse pass added into the pointer's shadow bits: a
// crash (ClangEnzyme-19 made the same mistake on two such records, rev2/memory/copy_helper_several_types.c)
// Reduced from tests/randprog seed 907217 (found at -O0). Forward and reverse
// mode against finite differences (Ridders) at the failing point, and the
// primal results of the derivative calls against the plain call.
// tol: rel=1e-6 abs=2.1e-05
// grads: 14
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern int enzyme_dup, enzyme_const, enzyme_out;

struct rp907217_R3 { double v[3]; double w; const double *p; int n; };
__attribute__((noinline)) void rp907217_copy6(void *to, const void *from, unsigned long n) {
    memcpy(to, from, n);
}
struct rp907217_S10 { double b; double a; int k; char tag[3]; };
double rp907217(const double *x, double *y) {
    double in1 = x[0];
    double in2 = x[2];
    struct rp907217_R3 r4;
    r4.n = 3; r4.p = x; r4.w = (in2 * in2);
    for (int i5 = 0; i5 < 3; i5++) {
        r4.v[i5] = (0.548 * in2) * (0.5 + 0.25 * i5);
    }
    struct rp907217_R3 rc7;
    rp907217_copy6(&rc7, &r4, sizeof rc7);
    double acc8 = rc7.w * rc7.n;
    for (int j9 = 0; j9 < 3; j9++) {
        acc8 += rc7.v[j9] * rc7.p[j9 % 3];
    }
    struct rp907217_S10 s11, sc12;
    s11.k = 2; s11.a = r4.w; s11.b = -r4.w; s11.tag[0] = 'x';
    rp907217_copy6(&sc12, &s11, sizeof sc12);
    acc8 += (sc12.a + 0.5 * sc12.b) * 0.25 * sc12.k;
    double rv13 = acc8;
    y[0] += in1 + -0.817 * rv13;
    double result = ((in2 - in1) * rv13) + 0.752 * rv13;
    return result;
}

double __enzyme_fwddiff_rp907217(void *, ...);
void __enzyme_autodiff_rp907217(void *, ...);
static void rp907217__eval(const double *u, int n, double *o) {
    double x[3];
    memcpy(x, u, sizeof x);
    double y[1] = {-0.45};
    double r = rp907217(x, y);
    memcpy(o, y, sizeof y);
    o[1] = r;
    (void)n;
}

static void rp907217__fwd(const double *u, const double *du, int n, double *o, double *dout) {
    double x[3], dx[3] = {0};
    memcpy(x, u, sizeof x);
    double y[1] = {-0.45}, dy[1] = {0};
    memcpy(dx, du, sizeof dx);
    double dr = __enzyme_fwddiff_rp907217((void *)rp907217, enzyme_dup, x, dx, enzyme_dup, y, dy);
    memcpy(o, y, sizeof y);
    memcpy(dout, dy, sizeof dy);
    dout[1] = dr;
    (void)n;
}

static void rp907217__rev(const double *u, const double *w, int n, double *o, double *gu) {
    double x[3], dx[3] = {0};
    memcpy(x, u, sizeof x);
    double y[1] = {-0.45}, dy[1] = {0};
    memcpy(dy, w, sizeof dy);
    __enzyme_autodiff_rp907217((void *)rp907217, enzyme_dup, x, dx, enzyme_dup, y, dy);
    memcpy(gu, dx, sizeof dx);
    memcpy(o, y, sizeof y);
    (void)n; (void)w;
}


/* d o / d u_j by Ridders' extrapolation of central differences (as the tester) */
static void ridders(const double *u, int n, int j, double *best) {
    double a[10][10][2], err[2], up[3], op[2], om[2], h = 0.01;
    for (int i = 0; i < 2; i++)
        err[i] = INFINITY;
    for (int k = 0; k < 10; k++, h /= 1.4) {
        memcpy(up, u, sizeof up);
        up[j] = u[j] + h;
        rp907217__eval(up, n, op);
        up[j] = u[j] - h;
        rp907217__eval(up, n, om);
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
    const double u[3] = {-0.34690454284715333, 0.49347382025150677, 1.0308715772915535};
    const int n = 0;
    double o[2], op[2], t[3], d[2], w[2], g[3], g_ret[3], col[2];
    double fd[2][3];
    rp907217__eval(u, n, o);
    for (int j = 0; j < 3; j++) {
        ridders(u, n, j, col);
        for (int i = 0; i < 2; i++)
            fd[i][j] = col[i];
    }
    for (int j = 0; j < 3; j++) { /* forward mode: column j */
        memset(t, 0, sizeof t);
        t[j] = 1.0;
        rp907217__fwd(u, t, n, op, d);
        for (int i = 0; i < 2; i++)
            printf("grad fwd.o%d.u%d %.17g %.17g\n", i, j, d[i], fd[i][j]);
        for (int i = 0; j == 0 && i < 1; i++)
            printf("grad fwd.primal.y%d %.17g %.17g\n", i, op[i], o[i]);
    }
    memset(g_ret, 0, sizeof g_ret);
    if (1) { /* the result is always seeded with 1: its gradient alone */
        memset(w, 0, sizeof w);
        rp907217__rev(u, w, n, op, g_ret);
    }
    for (int s = 0; s < 2; s++) { /* reverse mode: row s */
        memset(w, 0, sizeof w);
        w[s] = 1.0;
        rp907217__rev(u, w, n, op, g);
        for (int j = 0; j < 3; j++)
            printf("grad rev.o%d.u%d %.17g %.17g\n", s, j, s < 1 ? g[j] - g_ret[j] : g[j], fd[s][j]);
        for (int i = 0; s == 0 && i < 1; i++)
            printf("grad rev.primal.y%d %.17g %.17g\n", i, op[i], o[i]);
    }
    return 0;
}
