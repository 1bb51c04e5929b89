// An unrolled loop over a record's two-element array field reads through phi [&r.v[0],
// entry], [&r.v[1], latch]: related as a walk of period 8 it folded the record's int and
// pointer into the array, 'the memory copied by this memcpy is used with conflicting
// types (bytes 0 to 40)' at -O2
// Reduced from tests/randprog seed 907339 (found at -O0). Forward and reverse
// mode against finite differences (Ridders) at the failing point, and the
// primal results of the derivative calls against the plain call.
// tol: rel=1e-6 abs=3.3e-06
// grads: 8
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern int enzyme_dup, enzyme_const, enzyme_out;

struct rp907339_R2 { double v[2]; int n; double w; const double *p; };
static __attribute__((noinline)) void rp907339_copy5(void *to, const void *from, unsigned long n) {
    memcpy(to, from, n);
}
struct rp907339_S9 { double a; int k; double b; char tag[3]; };
static double rp907339(const double *x, double s0, double s1) {
    double in1 = x[0];
    struct rp907339_R2 r3;
    r3.n = 2; r3.p = x; r3.w = (s0 + in1);
    for (int i4 = 0; i4 < 2; i4++) {
        r3.v[i4] = (-0.265 * in1 + s0) * (0.5 + 0.25 * i4);
    }
    struct rp907339_R2 rc6;
    rp907339_copy5(&rc6, &r3, sizeof rc6);
    double acc7 = rc6.w * rc6.n;
    for (int j8 = 0; j8 < 2; j8++) {
        acc7 += rc6.v[j8] * rc6.p[j8 % 2];
    }
    struct rp907339_S9 s10, sc11;
    s10.k = 2; s10.a = r3.w; s10.b = -r3.w; s10.tag[0] = 'x';
    rp907339_copy5(&sc11, &s10, sizeof sc11);
    acc7 += (sc11.a + 0.5 * sc11.b) * 0.25 * sc11.k;
    double rv12 = acc7;
    double result = (-0.586 * (in1 + rv12) + s1) + -0.382 * rv12;
    return result;
}

typedef struct { double d0; double d1; } rp907339__grad;
double __enzyme_fwddiff_rp907339(void *, ...);
rp907339__grad __enzyme_autodiff_rp907339(void *, ...);
static void rp907339__eval(const double *u, int n, double *o) {
    double x[2];
    memcpy(x, u, sizeof x);
    double r = rp907339(x, u[2], u[3]);
    o[0] = r;
    (void)n;
}

static void rp907339__fwd(const double *u, const double *du, int n, double *o, double *dout) {
    double x[2], dx[2] = {0};
    memcpy(x, u, sizeof x);
    memcpy(dx, du, sizeof dx);
    double dr = __enzyme_fwddiff_rp907339((void *)rp907339, enzyme_dup, x, dx, enzyme_dup, u[2], du[2], enzyme_dup, u[3], du[3]);
    dout[0] = dr;
    (void)n;
}

static void rp907339__rev(const double *u, const double *w, int n, double *o, double *gu) {
    double x[2], dx[2] = {0};
    memcpy(x, u, sizeof x);
    rp907339__grad g = __enzyme_autodiff_rp907339((void *)rp907339, enzyme_dup, x, dx, enzyme_out, u[2], enzyme_out, u[3]);
    memcpy(gu, dx, sizeof dx);
    gu[2] = g.d0;
    gu[3] = g.d1;
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
        rp907339__eval(up, n, op);
        up[j] = u[j] - h;
        rp907339__eval(up, n, om);
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
    const double u[4] = {-1.1802010926357422, 1.0718767450569306, 0.9804938737791511, 0.6112359040372941};
    const int n = 0;
    double o[1], op[1], t[4], d[1], w[1], g[4], g_ret[4], col[1];
    double fd[1][4];
    rp907339__eval(u, n, o);
    for (int j = 0; j < 4; j++) {
        ridders(u, n, j, col);
        for (int i = 0; i < 1; i++)
            fd[i][j] = col[i];
    }
    for (int j = 0; j < 4; j++) { /* forward mode: column j */
        memset(t, 0, sizeof t);
        t[j] = 1.0;
        rp907339__fwd(u, t, n, op, d);
        for (int i = 0; i < 1; i++)
            printf("grad fwd.o%d.u%d %.17g %.17g\n", i, j, d[i], fd[i][j]);
        for (int i = 0; j == 0 && i < 0; i++)
            printf("grad fwd.primal.y%d %.17g %.17g\n", i, op[i], o[i]);
    }
    memset(g_ret, 0, sizeof g_ret);
    if (1) { /* the result is always seeded with 1: its gradient alone */
        memset(w, 0, sizeof w);
        rp907339__rev(u, w, n, op, g_ret);
    }
    for (int s = 0; s < 1; s++) { /* reverse mode: row s */
        memset(w, 0, sizeof w);
        w[s] = 1.0;
        rp907339__rev(u, w, n, op, g);
        for (int j = 0; j < 4; j++)
            printf("grad rev.o%d.u%d %.17g %.17g\n", s, j, s < 0 ? g[j] - g_ret[j] : g[j], fd[s][j]);
        for (int i = 0; s == 0 && i < 0; i++)
            printf("grad rev.primal.y%d %.17g %.17g\n", i, op[i], o[i]);
    }
    return 0;
}
