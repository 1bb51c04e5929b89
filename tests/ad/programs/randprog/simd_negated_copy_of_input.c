// an input array copied and negated by SSE2 integer loads, xor with the sign bit and
// stores into a local array: the loaded <2 x i64> was taken for integers (its only use
// an xor), the store for inactive bits over doubles: a zero derivative
// Reduced from tests/randprog seed 931034 (found at -O2). Forward and reverse
// mode against finite differences (Ridders) at the failing point, and the
// primal results of the derivative calls against the plain call.
// tol: rel=1e-6 abs=5.4e-06
// grads: 32
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern int enzyme_dup, enzyme_const, enzyme_out;

#include <stdint.h>
#include <emmintrin.h>
__attribute__((noinline)) double rp931034_h5(double a, double b, double c) {
    return ((c * a) + a);
}
void rp931034(const double *x, double s0, double *y) {
    double in1 = x[4];
    double s2[6];
    for (int i3 = 0; i3 < 6; i3 += 2) {
        _mm_storeu_si128((__m128i *)(s2 + i3), _mm_xor_si128(_mm_loadu_si128((const __m128i *)(x + i3)), _mm_set1_epi64x((long long)0x8000000000000000ULL)));
    }
    double v4 = 0.852 * s2[2] + s2[2];
    double h6 = rp931034_h5((s0 * -0.531), sin((s0 * v4)), (s0 * in1));
    double acc7 = v4;
    for (int i8 = 0; i8 < 9; i8++) {
        for (int j9 = 0; j9 < 3; j9++) {
            acc7 = 0.36 * acc7 + 0.64 * rp931034_h5(sin((s0 + atan(acc7))), sin((v4 * s2[i8 % 6])), sin((0.213 * i8 - h6)));
        }
    }
    double acc10 = h6;
    for (int i11 = 0; i11 < 10; i11++) {
        acc10 = 0.77 * acc10 + 0.23 * ((1.49 * v4 + h6) + (h6 * tanh(acc10)));
    }
    double v12 = (acc10 + v4);
    y[0] += v12 + 0.761 * v4;
    y[1] += ((-1.12 * acc10 + s0) + ((acc10 * v12) * 0.00432)) + 0.395 * v12;
}

void __enzyme_fwddiff_rp931034(void *, ...);
double __enzyme_autodiff_rp931034(void *, ...);
static void rp931034__eval(const double *u, int n, double *o) {
    double x[6];
    memcpy(x, u, sizeof x);
    double y[2] = {0.34, -0.19};
    rp931034(x, u[6], y);
    memcpy(o, y, sizeof y);
    (void)n;
}

static void rp931034__fwd(const double *u, const double *du, int n, double *o, double *dout) {
    double x[6], dx[6] = {0};
    memcpy(x, u, sizeof x);
    double y[2] = {0.34, -0.19}, dy[2] = {0};
    memcpy(dx, du, sizeof dx);
    __enzyme_fwddiff_rp931034((void *)rp931034, enzyme_dup, x, dx, enzyme_dup, u[6], du[6], enzyme_dup, y, dy);
    memcpy(o, y, sizeof y);
    memcpy(dout, dy, sizeof dy);
    (void)n;
}

static void rp931034__rev(const double *u, const double *w, int n, double *o, double *gu) {
    double x[6], dx[6] = {0};
    memcpy(x, u, sizeof x);
    double y[2] = {0.34, -0.19}, dy[2] = {0};
    memcpy(dy, w, sizeof dy);
    double g = __enzyme_autodiff_rp931034((void *)rp931034, enzyme_dup, x, dx, enzyme_out, u[6], enzyme_dup, y, dy);
    memcpy(gu, dx, sizeof dx);
    gu[6] = g;
    memcpy(o, y, sizeof y);
    (void)n; (void)w;
}


/* d o / d u_j by Ridders' extrapolation of central differences (as the tester) */
static void ridders(const double *u, int n, int j, double *best) {
    double a[10][10][2], err[2], up[7], op[2], om[2], h = 0.01;
    for (int i = 0; i < 2; i++)
        err[i] = INFINITY;
    for (int k = 0; k < 10; k++, h /= 1.4) {
        memcpy(up, u, sizeof up);
        up[j] = u[j] + h;
        rp931034__eval(up, n, op);
        up[j] = u[j] - h;
        rp931034__eval(up, n, om);
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
    const double u[7] = {-0.37023450096167665, -0.8527088841850421, 0.4517478596858713, -1.0199383316460446, 0.883397494023334, -0.43264800363996714, 1.079591083020684};
    const int n = 0;
    double o[2], op[2], t[7], d[2], w[2], g[7], g_ret[7], col[2];
    double fd[2][7];
    rp931034__eval(u, n, o);
    for (int j = 0; j < 7; j++) {
        ridders(u, n, j, col);
        for (int i = 0; i < 2; i++)
            fd[i][j] = col[i];
    }
    for (int j = 0; j < 7; j++) { /* forward mode: column j */
        memset(t, 0, sizeof t);
        t[j] = 1.0;
        rp931034__fwd(u, t, n, op, d);
        for (int i = 0; i < 2; i++)
            printf("grad fwd.o%d.u%d %.17g %.17g\n", i, j, d[i], fd[i][j]);
        for (int i = 0; j == 0 && i < 2; i++)
            printf("grad fwd.primal.y%d %.17g %.17g\n", i, op[i], o[i]);
    }
    memset(g_ret, 0, sizeof g_ret);
    if (0) { /* the result is always seeded with 1: its gradient alone */
        memset(w, 0, sizeof w);
        rp931034__rev(u, w, n, op, g_ret);
    }
    for (int s = 0; s < 2; s++) { /* reverse mode: row s */
        memset(w, 0, sizeof w);
        w[s] = 1.0;
        rp931034__rev(u, w, n, op, g);
        for (int j = 0; j < 7; j++)
            printf("grad rev.o%d.u%d %.17g %.17g\n", s, j, s < 2 ? g[j] - g_ret[j] : g[j], fd[s][j]);
        for (int i = 0; s == 0 && i < 2; i++)
            printf("grad rev.primal.y%d %.17g %.17g\n", i, op[i], o[i]);
    }
    return 0;
}
