// memset(&x[0], 0, sizeof(double)) over an active input, which clang emits as an integer
// store of 0, keeps the old tangent (forward) and adjoint (reverse) of x[0]: the zero
// read afterwards has derivative 1 instead of 0 (issue 17 item 1)
// Reduced from tests/randprog seed 41 (found at -O0). Forward and reverse
// mode against finite differences (Ridders) at the failing point, and the
// primal results of the derivative calls against the plain call.
// tol: rel=1e-6 abs=1.0e-06
// grads: 14
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern int enzyme_dup, enzyme_const, enzyme_out;

double rp41_h10(const double *p, int m) {
    double s = 0.5;
    for (int i = 0; i < m; i++)
        s += p[i];
    return s;
}
static double rp41(double *x, double s0, int n, double *y) {
    memset(&x[0], 0, sizeof(double));
    double c3[2];
    memcpy(c3, x, 2 * sizeof(double));
    double h11 = rp41_h10(c3, 2);
    double v18 = h11;
    double result = v18;
    return result;
}

double __enzyme_fwddiff_rp41(void *, ...);
double __enzyme_autodiff_rp41(void *, ...);
static void rp41__eval(const double *u, int n, double *o) {
    double x[2];
    memcpy(x, u, sizeof x);
    double y[1] = {0.37};
    double r = rp41(x, u[2], n, y);
    memcpy(o, y, sizeof y);
    o[1] = r;
    (void)n;
}

static void rp41__fwd(const double *u, const double *du, int n, double *o, double *dout) {
    double x[2], dx[2] = {0};
    memcpy(x, u, sizeof x);
    double y[1] = {0.37}, dy[1] = {0};
    memcpy(dx, du, sizeof dx);
    double dr = __enzyme_fwddiff_rp41((void *)rp41, enzyme_dup, x, dx, enzyme_dup, u[2], du[2], enzyme_const, n, enzyme_dup, y, dy);
    memcpy(o, y, sizeof y);
    memcpy(dout, dy, sizeof dy);
    dout[1] = dr;
    (void)n;
}

static void rp41__rev(const double *u, const double *w, int n, double *o, double *gu) {
    double x[2], dx[2] = {0};
    memcpy(x, u, sizeof x);
    double y[1] = {0.37}, dy[1] = {0};
    memcpy(dy, w, sizeof dy);
    double g = __enzyme_autodiff_rp41((void *)rp41, enzyme_dup, x, dx, enzyme_out, u[2], enzyme_const, n, enzyme_dup, y, dy);
    memcpy(gu, dx, sizeof dx);
    gu[2] = g;
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
        rp41__eval(up, n, op);
        up[j] = u[j] - h;
        rp41__eval(up, n, om);
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
    const double u[3] = {-0.5656445952702471, -0.604637059414834, 0.48941271245326484};
    const int n = 3;
    double o[2], op[2], t[3], d[2], w[2], g[3], g_ret[3], col[2];
    double fd[2][3];
    rp41__eval(u, n, o);
    for (int j = 0; j < 3; j++) {
        ridders(u, n, j, col);
        for (int i = 0; i < 2; i++)
            fd[i][j] = col[i];
    }
    for (int j = 0; j < 3; j++) { /* forward mode: column j */
        memset(t, 0, sizeof t);
        t[j] = 1.0;
        rp41__fwd(u, t, n, op, d);
        for (int i = 0; i < 2; i++)
            printf("grad fwd.o%d.u%d %.17g %.17g\n", i, j, d[i], fd[i][j]);
        for (int i = 0; j == 0 && i < 1; i++)
            printf("grad fwd.primal.y%d %.17g %.17g\n", i, op[i], o[i]);
    }
    memset(g_ret, 0, sizeof g_ret);
    if (1) { /* the result is always seeded with 1: its gradient alone */
        memset(w, 0, sizeof w);
        rp41__rev(u, w, n, op, g_ret);
    }
    for (int s = 0; s < 2; s++) { /* reverse mode: row s */
        memset(w, 0, sizeof w);
        w[s] = 1.0;
        rp41__rev(u, w, n, op, g);
        for (int j = 0; j < 3; j++)
            printf("grad rev.o%d.u%d %.17g %.17g\n", s, j, s < 1 ? g[j] - g_ret[j] : g[j], fd[s][j]);
        for (int i = 0; s == 0 && i < 1; i++)
            printf("grad rev.primal.y%d %.17g %.17g\n", i, op[i], o[i]);
    }
    return 0;
}
