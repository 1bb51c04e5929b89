// records in a local array, their 2x3 member read as m[j / 3][j % 3] in a loop of six
// beside a pointer member: bounding that index by its loop through the remainder's
// select (session 28, 3eeefb7) related the record's pointer to the doubles and the
// reverse pass crashed; index bounds from loops now only narrow
// Reduced from tests/randprog seed 928067 (found at -O0). Forward and reverse
// mode against finite differences (Ridders) at the failing point, and the
// primal results of the derivative calls against the plain call.
// tol: rel=1e-6 abs=5.8e-08
// grads: 6
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern int enzyme_dup, enzyme_const, enzyme_out;

struct rp928067_R35 { double m[2][3]; double w; int n; const double *p; };
void rp928067(double *x, int n, double *y) {
    double v33 = x[0] * x[1];
    double b36[7];
    for (int i37 = 0; i37 < 7; i37++) {
        b36[i37] = (v33 + cos((i37 * 0.389)));
    }
    struct rp928067_R35 r38;
    r38.n = 3; r38.p = b36; r38.w = log(1.09 + sin(x[1]) * sin(x[0]));
    for (int i39 = 0; i39 < 6; i39++) {
        r38.m[i39 / 3][i39 % 3] = pow(1.95 + sin(v33) * sin(v33), -1.06) * (0.5 + 0.25 * i39);
    }
    struct rp928067_R35 ra40[2];
    for (int k41 = 0; k41 < 2; k41++) {
        ra40[k41] = r38;
        ra40[k41].m[(k41 % 6) / 3][(k41 % 6) % 3] *= 1.0 + 0.125 * k41;
    }
    double acc43 = 0.0;
    for (int k41 = 0; k41 < 2; k41++) {
        for (int j42 = 0; j42 < 6; j42++) {
            acc43 += ra40[k41].m[j42 / 3][j42 % 3] * ra40[k41].p[j42 % 7];
        }
        acc43 += ra40[k41].w * ra40[k41].n;
    }
    y[0] = (acc43 / 2.0) * 0.0284;
}

void __enzyme_fwddiff_rp928067(void *, ...);
void __enzyme_autodiff_rp928067(void *, ...);
static void rp928067__eval(const double *u, int n, double *o) {
    double x[2];
    memcpy(x, u, sizeof x);
    double y[1] = {0.0};
    rp928067(x, n, y);
    memcpy(o, y, sizeof y);
    (void)n;
}

static void rp928067__fwd(const double *u, const double *du, int n, double *o, double *dout) {
    double x[2], dx[2] = {0};
    memcpy(x, u, sizeof x);
    double y[1] = {0.0}, dy[1] = {0};
    memcpy(dx, du, sizeof dx);
    __enzyme_fwddiff_rp928067((void *)rp928067, enzyme_dup, x, dx, enzyme_const, n, enzyme_dup, y, dy);
    memcpy(o, y, sizeof y);
    memcpy(dout, dy, sizeof dy);
    (void)n;
}

static void rp928067__rev(const double *u, const double *w, int n, double *o, double *gu) {
    double x[2], dx[2] = {0};
    memcpy(x, u, sizeof x);
    double y[1] = {0.0}, dy[1] = {0};
    memcpy(dy, w, sizeof dy);
    __enzyme_autodiff_rp928067((void *)rp928067, enzyme_dup, x, dx, enzyme_const, n, enzyme_dup, y, dy);
    memcpy(gu, dx, sizeof dx);
    memcpy(o, y, sizeof y);
    (void)n; (void)w;
}


/* d o / d u_j by Ridders' extrapolation of central differences (as the tester) */
static void ridders(const double *u, int n, int j, double *best) {
    double a[10][10][1], err[1], up[2], op[1], om[1], h = 0.01;
    for (int i = 0; i < 1; i++)
        err[i] = INFINITY;
    for (int k = 0; k < 10; k++, h /= 1.4) {
        memcpy(up, u, sizeof up);
        up[j] = u[j] + h;
        rp928067__eval(up, n, op);
        up[j] = u[j] - h;
        rp928067__eval(up, n, om);
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
    const double u[2] = {-0.38372059808251563, -0.388780742838108};
    const int n = 5;
    double o[1], op[1], t[2], d[1], w[1], g[2], g_ret[2], col[1];
    double fd[1][2];
    rp928067__eval(u, n, o);
    for (int j = 0; j < 2; j++) {
        ridders(u, n, j, col);
        for (int i = 0; i < 1; i++)
            fd[i][j] = col[i];
    }
    for (int j = 0; j < 2; j++) { /* forward mode: column j */
        memset(t, 0, sizeof t);
        t[j] = 1.0;
        rp928067__fwd(u, t, n, op, d);
        for (int i = 0; i < 1; i++)
            printf("grad fwd.o%d.u%d %.17g %.17g\n", i, j, d[i], fd[i][j]);
        for (int i = 0; j == 0 && i < 1; i++)
            printf("grad fwd.primal.y%d %.17g %.17g\n", i, op[i], o[i]);
    }
    memset(g_ret, 0, sizeof g_ret);
    if (0) { /* the result is always seeded with 1: its gradient alone */
        memset(w, 0, sizeof w);
        rp928067__rev(u, w, n, op, g_ret);
    }
    for (int s = 0; s < 1; s++) { /* reverse mode: row s */
        memset(w, 0, sizeof w);
        w[s] = 1.0;
        rp928067__rev(u, w, n, op, g);
        for (int j = 0; j < 2; j++)
            printf("grad rev.o%d.u%d %.17g %.17g\n", s, j, s < 1 ? g[j] - g_ret[j] : g[j], fd[s][j]);
        for (int i = 0; s == 0 && i < 1; i++)
            printf("grad rev.primal.y%d %.17g %.17g\n", i, op[i], o[i]);
    }
    return 0;
}
