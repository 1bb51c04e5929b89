// memcpy of one double from a constant table over an element of a local array of active
// values (an integer store) keeps the old shadow; the element is then read through an
// aliasing pointer by a noinline helper (issue 17 item 1)
// Reduced from tests/randprog seed 388 (found at -O0). Forward and reverse
// mode against finite differences (Ridders) at the failing point, and the
// primal results of the derivative calls against the plain call.
// tol: rel=1e-6 abs=4.5e-07
// grads: 8
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern int enzyme_dup, enzyme_const, enzyme_out;

const double rp388_W4[4] = {-1.45, 1.85, -0.228, -0.237};
static __attribute__((noinline)) void rp388_axpy46(double *dst, const double *src, int m, double c) {
    for (int i = 0; i < m; i++)
        dst[i] = 0.5 * dst[i] + c * sin(src[i]);
}
double rp388(const double *x, double s0, int n, const int *ix) {
    double b2[6];
    for (int i3 = 0; i3 < 6; i3++) {
        b2[i3] = s0;
    }
    memcpy(b2 + 3, rp388_W4 + 2, sizeof(double));
    double v43 = 0.5;
    double *p44 = b2 + 2;
    double *q45 = b2 + 0;
    rp388_axpy46(p44, q45, 4, v43);
    double v47 = b2[3];
    double result = v47;
    return result;
}

static const int rp388__ix[5] = {0, 0, 0, 2, 1};
double __enzyme_fwddiff_rp388(void *, ...);
double __enzyme_autodiff_rp388(void *, ...);
static void rp388__eval(const double *u, int n, double *o) {
    double x[3];
    memcpy(x, u, sizeof x);
    double r = rp388(x, u[3], n, rp388__ix);
    o[0] = r;
    (void)n;
}

static void rp388__fwd(const double *u, const double *du, int n, double *o, double *dout) {
    double x[3], dx[3] = {0};
    memcpy(x, u, sizeof x);
    memcpy(dx, du, sizeof dx);
    double dr = __enzyme_fwddiff_rp388((void *)rp388, enzyme_dup, x, dx, enzyme_dup, u[3], du[3], enzyme_const, n, enzyme_const, rp388__ix);
    dout[0] = dr;
    (void)n;
}

static void rp388__rev(const double *u, const double *w, int n, double *o, double *gu) {
    double x[3], dx[3] = {0};
    memcpy(x, u, sizeof x);
    double g = __enzyme_autodiff_rp388((void *)rp388, enzyme_dup, x, dx, enzyme_out, u[3], enzyme_const, n, enzyme_const, rp388__ix);
    memcpy(gu, dx, sizeof dx);
    gu[3] = g;
    (void)n; (void)w;
}


/* d o / d u_j by Ridders' extrapolation of central differences (as the tester) */
static void ridders(const double *u, int n, int j, double *best) {
    double a[10][10][1], err[1], up[4], op[1], om[1], h = 0.01;
    for (int i = 0; i < 1; i++)
        err[i] = INFINITY;
    for (int k = 0; k < 10; k++, h /= 1.4) {
        memcpy(up, u, sizeof up);
        up[j] = u[j] + h;
        rp388__eval(up, n, op);
        up[j] = u[j] - h;
        rp388__eval(up, n, om);
        for (int i = 0; i < 1; i++) {
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
    const double u[4] = {-0.5592545685555357, -0.4572407071136447, -0.7700058276231065, -0.4646395914566488};
    const int n = 1;
    double o[1], op[1], t[4], d[1], w[1], g[4], g_ret[4], col[1];
    double fd[1][4];
    rp388__eval(u, n, o);
    for (int j = 0; j < 4; j++) {
        ridders(u, n, j, col);
        for (int i = 0; i < 1; i++)
            fd[i][j] = col[i];
    }
    for (int j = 0; j < 4; j++) { /* forward mode: column j */
        memset(t, 0, sizeof t);
        t[j] = 1.0;
        rp388__fwd(u, t, n, op, d);
        for (int i = 0; i < 1; i++)
            printf("grad fwd.o%d.u%d %.17g %.17g\n", i, j, d[i], fd[i][j]);
        for (int i = 0; j == 0 && i < 0; i++)
            printf("grad fwd.primal.y%d %.17g %.17g\n", i, op[i], o[i]);
    }
    memset(g_ret, 0, sizeof g_ret);
    if (1) { /* the result is always seeded with 1: its gradient alone */
        memset(w, 0, sizeof w);
        rp388__rev(u, w, n, op, g_ret);
    }
    for (int s = 0; s < 1; s++) { /* reverse mode: row s */
        memset(w, 0, sizeof w);
        w[s] = 1.0;
        rp388__rev(u, w, n, op, g);
        for (int j = 0; j < 4; j++)
            printf("grad rev.o%d.u%d %.17g %.17g\n", s, j, s < 0 ? g[j] - g_ret[j] : g[j], fd[s][j]);
        for (int i = 0; s == 0 && i < 0; i++)
            printf("grad rev.primal.y%d %.17g %.17g\n", i, op[i], o[i]);
    }
    return 0;
}
