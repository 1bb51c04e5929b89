// m[j / 3][j % 3] of a heap record: the optimizer's select for j % 3 reached -3 on its
// false side; without TBAA the record's matrix walk was unbounded and its int, pointer
// and double folded into the doubles (a located rejection of the memcpy)
// Reduced from tests/randprog seed 927250 (found at -O2 -fno-strict-aliasing). Forward and reverse
// mode against finite differences (Ridders) at the failing point, and the
// primal results of the derivative calls against the plain call.
// tol: rel=1e-6 abs=2.0e-06
// grads: 14
// flags: -fno-strict-aliasing
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern int enzyme_dup, enzyme_const, enzyme_out;

const double rp927250_W5[8] = {-1.82, -0.615, 0.859, -1.85, -1.76, 1.92, -0.0861, 0.417};
struct rp927250_R9 { double m[2][3]; int n; const double *p; double w; };
static double rp927250(double *x, double *y) {
    double in1 = x[2];
    double *m2 = calloc(6, sizeof(double));
    for (int i3 = 0; i3 < 6; i3++) {
        m2[i3] += (in1 + (0.1 * i3));
    }
    double v4 = -1.4 * m2[1] + atanh(0.58 * sin(m2[1]));
    double w6 = rp927250_W5[(3) % 8] * cosh(sin(v4));
    double acc7 = in1;
    for (int i8 = 0; i8 < 6; i8++) {
        acc7 = 0.56 * acc7 + 0.44 * rp927250_W5[i8];
    }
    double b10[8] = {sin(v4), acc7, atanh(0.88 * sin(in1)), sqrt(1.25 + sin(v4) * sin(v4)), (0.635 * acc7 + -1.38), erf(in1), log2(0.85 + sin(v4) * sin(v4)), cosh(0.604)};
    struct rp927250_R9 r11;
    r11.n = 3; r11.p = b10; r11.w = sqrt(1.68 + acc7 * acc7);
    for (int i12 = 0; i12 < 6; i12++) {
        r11.m[i12 / 3][i12 % 3] = in1 * (0.5 + 0.25 * i12);
    }
    struct rp927250_R9 *rh13 = malloc(sizeof *rh13);
    *rh13 = r11;
    double acc14 = rh13->w * rh13->n;
    for (int j15 = 0; j15 < 6; j15++) {
        acc14 += rh13->m[j15 / 3][j15 % 3] * rh13->p[j15 % 8];
    }
    double rv16 = (acc14) * 0.034;
    double *p17 = ((v4 * acc7) >= -0.631) ? b10 : x;
    double sum18 = 0.0;
    for (int i19 = 0; i19 < 3; i19++) {
        sum18 += 0.184 * tan(0.65 * sin(p17[i19]));
    }
    for (int i20 = 1; i20 < 6; i20++) {
        m2[i20] = 0.46 * m2[i20] + 0.54 * (atan(m2[i20 - 1]) * sin(1.28));
    }
    double v21 = -1.39 * m2[0] + 0.334 * m2[1] + 1.33 * m2[3];
    x[0] *= x[0];
    double v22 = 1.0 * x[1] + x[1];
    y[0] = (0.589 * (v21 * sum18) + v22) + -0.722 * rv16;
    double result = v22 + 0.65 * v21;
    free(m2);
    free(rh13);
    return result;
}

double __enzyme_fwddiff_rp927250(void *, ...);
void __enzyme_autodiff_rp927250(void *, ...);
static void rp927250__eval(const double *u, int n, double *o) {
    double x[3];
    memcpy(x, u, sizeof x);
    double y[1] = {0.0};
    double r = rp927250(x, y);
    memcpy(o, y, sizeof y);
    o[1] = r;
    (void)n;
}

static void rp927250__fwd(const double *u, const double *du, int n, double *o, double *dout) {
    double x[3], dx[3] = {0};
    memcpy(x, u, sizeof x);
    double y[1] = {0.0}, dy[1] = {0};
    memcpy(dx, du, sizeof dx);
    double dr = __enzyme_fwddiff_rp927250((void *)rp927250, enzyme_dup, x, dx, enzyme_dup, y, dy);
    memcpy(o, y, sizeof y);
    memcpy(dout, dy, sizeof dy);
    dout[1] = dr;
    (void)n;
}

static void rp927250__rev(const double *u, const double *w, int n, double *o, double *gu) {
    double x[3], dx[3] = {0};
    memcpy(x, u, sizeof x);
    double y[1] = {0.0}, dy[1] = {0};
    memcpy(dy, w, sizeof dy);
    __enzyme_autodiff_rp927250((void *)rp927250, enzyme_dup, x, dx, enzyme_dup, y, dy);
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
        rp927250__eval(up, n, op);
        up[j] = u[j] - h;
        rp927250__eval(up, n, om);
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
    const double u[3] = {-0.36005648518323136, 0.7377895017075604, -0.37500007124335855};
    const int n = 0;
    double o[2], op[2], t[3], d[2], w[2], g[3], g_ret[3], col[2];
    double fd[2][3];
    rp927250__eval(u, n, o);
    for (int j = 0; j < 3; j++) {
        ridders(u, n, j, col);
        for (int i = 0; i < 2; i++)
            fd[i][j] = col[i];
    }
    for (int j = 0; j < 3; j++) { /* forward mode: column j */
        memset(t, 0, sizeof t);
        t[j] = 1.0;
        rp927250__fwd(u, t, n, op, d);
        for (int i = 0; i < 2; i++)
            printf("grad fwd.o%d.u%d %.17g %.17g\n", i, j, d[i], fd[i][j]);
        for (int i = 0; j == 0 && i < 1; i++)
            printf("grad fwd.primal.y%d %.17g %.17g\n", i, op[i], o[i]);
    }
    memset(g_ret, 0, sizeof g_ret);
    if (1) { /* the result is always seeded with 1: its gradient alone */
        memset(w, 0, sizeof w);
        rp927250__rev(u, w, n, op, g_ret);
    }
    for (int s = 0; s < 2; s++) { /* reverse mode: row s */
        memset(w, 0, sizeof w);
        w[s] = 1.0;
        rp927250__rev(u, w, n, op, g);
        for (int j = 0; j < 3; j++)
            printf("grad rev.o%d.u%d %.17g %.17g\n", s, j, s < 1 ? g[j] - g_ret[j] : g[j], fd[s][j]);
        for (int i = 0; s == 0 && i < 1; i++)
            printf("grad rev.primal.y%d %.17g %.17g\n", i, op[i], o[i]);
    }
    return 0;
}
