// memcpy of one double from a constant table over an element of the active input x,
// emitted as an integer store, keeps the element's old shadow: the constant read
// afterwards has derivative 1 instead of 0 (issue 17 item 1)
// Reduced from tests/randprog seed 223 (found at -O0). Forward and reverse
// mode against finite differences (Ridders) at the failing point, and the
// primal results of the derivative calls against the plain call.
// tol: rel=1e-6 abs=1.0e-12
// grads: 10
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern int enzyme_dup, enzyme_const, enzyme_out;

const double rp223_W10[5] = {-0.461, -1.94, -0.264, -1.56, -0.159};
void rp223(double *x, int n, double *y) {
    memcpy(x + 0, rp223_W10 + 0, sizeof(double));
    double acc13 = 0.5;
    for (int i14 = 0; i14 < 5; i14++) {
        if (log2(1.25 + cos(acc13) * cos(acc13)) < 0.394) {
            acc13 = 0.5;
        }
        else {
            acc13 = x[i14 % 4];
        }
    }
    double acc15 = acc13;
    y[0] = acc15;
}

void __enzyme_fwddiff_rp223(void *, ...);
void __enzyme_autodiff_rp223(void *, ...);
static void rp223__eval(const double *u, int n, double *o) {
    double x[4];
    memcpy(x, u, sizeof x);
    double y[1] = {0.0};
    rp223(x, n, y);
    memcpy(o, y, sizeof y);
    (void)n;
}

static void rp223__fwd(const double *u, const double *du, int n, double *o, double *dout) {
    double x[4], dx[4] = {0};
    memcpy(x, u, sizeof x);
    double y[1] = {0.0}, dy[1] = {0};
    memcpy(dx, du, sizeof dx);
    __enzyme_fwddiff_rp223((void *)rp223, enzyme_dup, x, dx, enzyme_const, n, enzyme_dup, y, dy);
    memcpy(o, y, sizeof y);
    memcpy(dout, dy, sizeof dy);
    (void)n;
}

static void rp223__rev(const double *u, const double *w, int n, double *o, double *gu) {
    double x[4], dx[4] = {0};
    memcpy(x, u, sizeof x);
    double y[1] = {0.0}, dy[1] = {0};
    memcpy(dy, w, sizeof dy);
    __enzyme_autodiff_rp223((void *)rp223, enzyme_dup, x, dx, enzyme_const, n, enzyme_dup, y, dy);
    memcpy(gu, dx, sizeof dx);
    memcpy(o, y, sizeof y);
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
        rp223__eval(up, n, op);
        up[j] = u[j] - h;
        rp223__eval(up, n, om);
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
    const double u[4] = {-0.8396601613783286, -0.4910454501830793, -0.36326648269915646, 0.30347613888715985};
    const int n = 1;
    double o[1], op[1], t[4], d[1], w[1], g[4], g_ret[4], col[1];
    double fd[1][4];
    rp223__eval(u, n, o);
    for (int j = 0; j < 4; j++) {
        ridders(u, n, j, col);
        for (int i = 0; i < 1; i++)
            fd[i][j] = col[i];
    }
    for (int j = 0; j < 4; j++) { /* forward mode: column j */
        memset(t, 0, sizeof t);
        t[j] = 1.0;
        rp223__fwd(u, t, n, op, d);
        for (int i = 0; i < 1; i++)
            printf("grad fwd.o%d.u%d %.17g %.17g\n", i, j, d[i], fd[i][j]);
        for (int i = 0; j == 0 && i < 1; i++)
            printf("grad fwd.primal.y%d %.17g %.17g\n", i, op[i], o[i]);
    }
    memset(g_ret, 0, sizeof g_ret);
    if (0) { /* the result is always seeded with 1: its gradient alone */
        memset(w, 0, sizeof w);
        rp223__rev(u, w, n, op, g_ret);
    }
    for (int s = 0; s < 1; s++) { /* reverse mode: row s */
        memset(w, 0, sizeof w);
        w[s] = 1.0;
        rp223__rev(u, w, n, op, g);
        for (int j = 0; j < 4; j++)
            printf("grad rev.o%d.u%d %.17g %.17g\n", s, j, s < 1 ? g[j] - g_ret[j] : g[j], fd[s][j]);
        for (int i = 0; s == 0 && i < 1; i++)
            printf("grad rev.primal.y%d %.17g %.17g\n", i, op[i], o[i]);
    }
    return 0;
}
