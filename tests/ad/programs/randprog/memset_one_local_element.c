// memset of one element of a local array of active values (an integer store of 0) keeps
// its old shadow: the zero read back carries the derivative of the value it overwrote
// (issue 17 item 1)
// Reduced from tests/randprog seed 290 (found at -O0). Forward and reverse
// mode against finite differences (Ridders) at the failing point, and the
// primal results of the derivative calls against the plain call.
// tol: rel=1e-6 abs=1.0e-12
// grads: 10
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern int enzyme_dup, enzyme_const, enzyme_out;

static inline void rp290_h7(double a, double b, double *o1, double *o2) {
    *o2 = a * -0.879 + cos(b);
}
static double rp290(const double *x, int n) {
    double in1 = x[0];
    double b4[3];
    for (int i5 = 0; i5 < 3; i5++) {
        b4[i5] = in1;
    }
    memset(&b4[0], 0, sizeof(double));
    double acc28 = 0.5;
    int i29 = 0;
    do {
        acc28 = b4[i29 % 3];
    } while (++i29 < n);
    double v30 = acc28;
    double result = v30;
    return result;
}

double __enzyme_fwddiff_rp290(void *, ...);
void __enzyme_autodiff_rp290(void *, ...);
static void rp290__eval(const double *u, int n, double *o) {
    double x[5];
    memcpy(x, u, sizeof x);
    double r = rp290(x, n);
    o[0] = r;
    (void)n;
}

static void rp290__fwd(const double *u, const double *du, int n, double *o, double *dout) {
    double x[5], dx[5] = {0};
    memcpy(x, u, sizeof x);
    memcpy(dx, du, sizeof dx);
    double dr = __enzyme_fwddiff_rp290((void *)rp290, enzyme_dup, x, dx, enzyme_const, n);
    dout[0] = dr;
    (void)n;
}

static void rp290__rev(const double *u, const double *w, int n, double *o, double *gu) {
    double x[5], dx[5] = {0};
    memcpy(x, u, sizeof x);
    __enzyme_autodiff_rp290((void *)rp290, enzyme_dup, x, dx, enzyme_const, n);
    memcpy(gu, dx, sizeof dx);
    (void)n; (void)w;
}


/* d o / d u_j by Ridders' extrapolation of central differences (as the tester) */
static void ridders(const double *u, int n, int j, double *best) {
    double a[10][10][1], err[1], up[5], op[1], om[1], h = 0.01;
    for (int i = 0; i < 1; i++)
        err[i] = INFINITY;
    for (int k = 0; k < 10; k++, h /= 1.4) {
        memcpy(up, u, sizeof up);
        up[j] = u[j] + h;
        rp290__eval(up, n, op);
        up[j] = u[j] - h;
        rp290__eval(up, n, om);
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
    const double u[5] = {0.872566431250523, 0.6017722101672771, -0.9759051874360103, -0.3822507439847343, -0.7879422188825089};
    const int n = 1;
    double o[1], op[1], t[5], d[1], w[1], g[5], g_ret[5], col[1];
    double fd[1][5];
    rp290__eval(u, n, o);
    for (int j = 0; j < 5; j++) {
        ridders(u, n, j, col);
        for (int i = 0; i < 1; i++)
            fd[i][j] = col[i];
    }
    for (int j = 0; j < 5; j++) { /* forward mode: column j */
        memset(t, 0, sizeof t);
        t[j] = 1.0;
        rp290__fwd(u, t, n, op, d);
        for (int i = 0; i < 1; i++)
            printf("grad fwd.o%d.u%d %.17g %.17g\n", i, j, d[i], fd[i][j]);
        for (int i = 0; j == 0 && i < 0; i++)
            printf("grad fwd.primal.y%d %.17g %.17g\n", i, op[i], o[i]);
    }
    memset(g_ret, 0, sizeof g_ret);
    if (1) { /* the result is always seeded with 1: its gradient alone */
        memset(w, 0, sizeof w);
        rp290__rev(u, w, n, op, g_ret);
    }
    for (int s = 0; s < 1; s++) { /* reverse mode: row s */
        memset(w, 0, sizeof w);
        w[s] = 1.0;
        rp290__rev(u, w, n, op, g);
        for (int j = 0; j < 5; j++)
            printf("grad rev.o%d.u%d %.17g %.17g\n", s, j, s < 0 ? g[j] - g_ret[j] : g[j], fd[s][j]);
        for (int i = 0; s == 0 && i < 0; i++)
            printf("grad rev.primal.y%d %.17g %.17g\n", i, op[i], o[i]);
    }
    return 0;
}
