// A matrix row chosen by `select(i > 2, &m[1][0], &m[0][0])` (what clang -O2 makes
// of `m[i / 3][i % 3]`), in a record that also holds a double, a pointer and an
// int. Relating the two choices modulo their distance (as for a loop walking an
// array) folded the record's pointer into the matrix: "the memory copied by this
// memcpy is used with conflicting types (bytes 24 to 32)", a rejection the
// random-program tester found (tests/randprog seed 904100, at -O0 and -O2). The
// select is now one of two places, as a GEP with a choice of indices is. Forward and reverse
// mode against finite differences (Ridders) at the failing point, and the
// primal results of the derivative calls against the plain call.
// tol: rel=1e-6 abs=1.0e-06
// grads: 24
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern int enzyme_dup, enzyme_const, enzyme_out;

struct rp904100_R3 { double v[3]; const double *p; int n; double w; };
struct rp904100_R10 { double m[2][3]; double w; const double *p; int n; };
void rp904100(const double *x, double s0, double *y) {
    double in1 = x[0];
    double in2 = x[1];
    struct rp904100_R3 r4;
    r4.n = 3; r4.p = x; r4.w = (s0 + in1);
    for (int i5 = 0; i5 < 3; i5++) {
        r4.v[i5] = (s0 - in1) * (0.5 + 0.25 * i5);
    }
    struct rp904100_R3 *rh6 = malloc(sizeof *rh6);
    *rh6 = r4;
    double acc7 = rh6->w * rh6->n;
    for (int j8 = 0; j8 < 3; j8++) {
        acc7 += rh6->v[j8] * rh6->p[j8 % 2];
    }
    double rv9 = acc7;
    struct rp904100_R10 r11;
    r11.n = 3; r11.p = x; r11.w = (rv9 + in1);
    for (int i12 = 0; i12 < 6; i12++) {
        r11.m[i12 / 3][i12 % 3] = (in1 * s0) * (0.5 + 0.25 * i12);
    }
    struct rp904100_R10 rc13;
    memcpy(&rc13, &r11, sizeof rc13);
    double acc14 = rc13.w * rc13.n;
    for (int j15 = 0; j15 < 6; j15++) {
        acc14 += rc13.m[j15 / 3][j15 % 3] * rc13.p[j15 % 2];
    }
    double rv16 = (acc14) * 0.0174;
    y[0] = ((rv9 - s0) + in1) + 0.474 * rv9;
    y[1] = ((rv16 - in1) + (in1 + s0)) + -0.411 * in2;
    y[2] = (s0 - in2) + -0.654 * rv16;
    free(rh6);
}

void __enzyme_fwddiff_rp904100(void *, ...);
double __enzyme_autodiff_rp904100(void *, ...);
static void rp904100__eval(const double *u, int n, double *o) {
    double x[2];
    memcpy(x, u, sizeof x);
    double y[3] = {-0.08, 0.0, 0.41};
    rp904100(x, u[2], y);
    memcpy(o, y, sizeof y);
    (void)n;
}

static void rp904100__fwd(const double *u, const double *du, int n, double *o, double *dout) {
    double x[2], dx[2] = {0};
    memcpy(x, u, sizeof x);
    double y[3] = {-0.08, 0.0, 0.41}, dy[3] = {0};
    memcpy(dx, du, sizeof dx);
    __enzyme_fwddiff_rp904100((void *)rp904100, enzyme_dup, x, dx, enzyme_dup, u[2], du[2], enzyme_dup, y, dy);
    memcpy(o, y, sizeof y);
    memcpy(dout, dy, sizeof dy);
    (void)n;
}

static void rp904100__rev(const double *u, const double *w, int n, double *o, double *gu) {
    double x[2], dx[2] = {0};
    memcpy(x, u, sizeof x);
    double y[3] = {-0.08, 0.0, 0.41}, dy[3] = {0};
    memcpy(dy, w, sizeof dy);
    double g = __enzyme_autodiff_rp904100((void *)rp904100, enzyme_dup, x, dx, enzyme_out, u[2], enzyme_dup, y, dy);
    memcpy(gu, dx, sizeof dx);
    gu[2] = g;
    memcpy(o, y, sizeof y);
    (void)n; (void)w;
}


/* d o / d u_j by Ridders' extrapolation of central differences (as the tester) */
static void ridders(const double *u, int n, int j, double *best) {
    double a[10][10][3], err[3], up[3], op[3], om[3], h = 0.01;
    for (int i = 0; i < 3; i++)
        err[i] = INFINITY;
    for (int k = 0; k < 10; k++, h /= 1.4) {
        memcpy(up, u, sizeof up);
        up[j] = u[j] + h;
        rp904100__eval(up, n, op);
        up[j] = u[j] - h;
        rp904100__eval(up, n, om);
        for (int i = 0; i < 3; i++) {
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
    const double u[3] = {0.9871538146725014, 0.3212012373943171, -1.053670857271246};
    const int n = 2;
    double o[3], op[3], t[3], d[3], w[3], g[3], g_ret[3], col[3];
    double fd[3][3];
    rp904100__eval(u, n, o);
    for (int j = 0; j < 3; j++) {
        ridders(u, n, j, col);
        for (int i = 0; i < 3; i++)
            fd[i][j] = col[i];
    }
    for (int j = 0; j < 3; j++) { /* forward mode: column j */
        memset(t, 0, sizeof t);
        t[j] = 1.0;
        rp904100__fwd(u, t, n, op, d);
        for (int i = 0; i < 3; i++)
            printf("grad fwd.o%d.u%d %.17g %.17g\n", i, j, d[i], fd[i][j]);
        for (int i = 0; j == 0 && i < 3; i++)
            printf("grad fwd.primal.y%d %.17g %.17g\n", i, op[i], o[i]);
    }
    memset(g_ret, 0, sizeof g_ret);
    if (0) { /* the result is always seeded with 1: its gradient alone */
        memset(w, 0, sizeof w);
        rp904100__rev(u, w, n, op, g_ret);
    }
    for (int s = 0; s < 3; s++) { /* reverse mode: row s */
        memset(w, 0, sizeof w);
        w[s] = 1.0;
        rp904100__rev(u, w, n, op, g);
        for (int j = 0; j < 3; j++)
            printf("grad rev.o%d.u%d %.17g %.17g\n", s, j, s < 3 ? g[j] - g_ret[j] : g[j], fd[s][j]);
        for (int i = 0; s == 0 && i < 3; i++)
            printf("grad rev.primal.y%d %.17g %.17g\n", i, op[i], o[i]);
    }
    return 0;
}
