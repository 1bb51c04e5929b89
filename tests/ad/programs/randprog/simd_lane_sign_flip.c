// a pair of doubles loaded by _mm_loadu_si128 and negated by _mm_xor_si128, one lane
// read back: the optimizer extracts that lane's i64 and flips its sign bit; the extract
// was no step the sign-bit rewrite knew, a located rejection
// Reduced from tests/randprog seed 931673 (found at -O2). Forward and reverse
// mode against finite differences (Ridders) at the failing point, and the
// primal results of the derivative calls against the plain call.
// tol: rel=1e-6 abs=2.0e-06
// grads: 26
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern int enzyme_dup, enzyme_const, enzyme_out;

#include <stdint.h>
#include <emmintrin.h>
static __attribute__((noinline)) double rp931673_bits3(const double *p) {
    uint64_t b;
    memcpy(&b, p, sizeof b);
    b &= 0x7fffffffffffffffULL;
    double r;
    memcpy(&r, &b, sizeof r);
    return r;
}
#include <stdint.h>
#include <emmintrin.h>
static const double rp931673_W14[7] = {-1.48, 1.06, 0.591, -0.992, 1.42, -1.85, -0.475};
static double rp931673(const double *x, double s0, double *y) {
    double in1 = x[0];
    double b2[5] = {s0, log2(1.75 + in1 * in1), pow(0.52 + in1 * in1, -1.29), in1, log1p(s0 * s0)};
    double v4 = rp931673_bits3(&b2[3]);
    double s5[4];
    for (int i6 = 0; i6 < 4; i6 += 2) {
        _mm_storeu_si128((__m128i *)(s5 + i6), _mm_xor_si128(_mm_loadu_si128((const __m128i *)(b2 + i6)), _mm_set1_epi64x((long long)0x8000000000000000ULL)));
    }
    double v7 = -0.897 * s5[1];
    double acc8 = s0;
    for (int i9 = 0; i9 < 5; i9++) {
        for (int j10 = 0; j10 < 4; j10++) {
            if (in1 < 0.0) {
                acc8 = 0.69 * acc8 + 0.31 * expm1(sin(pow(0.152 * i9, 3.0)));
            }
            else {
                acc8 = 0.69 * acc8 + 0.31 * b2[i9];
            }
        }
    }
    if (sin(1.02) >= 0.791) {
        acc8 = 0.5 * acc8 + atanh(0.70 * tanh((in1 - 1.09)));
    }
    double t11;
    if (in1 >= 0.0) {
        t11 = acosh(1.49 + sin((acc8 - 1.17)) * sin((acc8 - 1.17)));
    }
    else if (in1 > 0.0) {
        t11 = v7;
    }
    else {
        double v12 = sin(cbrt(1.19 + sin((in1 - acc8)) * sin((in1 - acc8))));
        t11 = erfc(pow(acc8, 3.0));
    }
    double v13 = asinh(sqrt(0.54 + sin(v7) * sin(v7)));
    double dot15 = 0.0;
    for (int i16 = 0; i16 < 7; i16++) {
        dot15 += rp931673_W14[i16] * (v13 - rp931673_W14[i16]);
    }
    double dot17 = 0.0;
    for (int i18 = 0; i18 < 7; i18++) {
        dot17 += rp931673_W14[i18] * (x[i18 % 5] * v13);
    }
    y[0] = sinh(sin((v13 + (dot15 * 0.047)))) + 0.477 * v13;
    double result = log2(1.03 + sin((v13 + (dot15 * 0.047))) * sin((v13 + (dot15 * 0.047)))) + 0.615 * dot17;
    return result;
}

double __enzyme_fwddiff_rp931673(void *, ...);
double __enzyme_autodiff_rp931673(void *, ...);
static void rp931673__eval(const double *u, int n, double *o) {
    double x[5];
    memcpy(x, u, sizeof x);
    double y[1] = {0.0};
    double r = rp931673(x, u[5], y);
    memcpy(o, y, sizeof y);
    o[1] = r;
    (void)n;
}

static void rp931673__fwd(const double *u, const double *du, int n, double *o, double *dout) {
    double x[5], dx[5] = {0};
    memcpy(x, u, sizeof x);
    double y[1] = {0.0}, dy[1] = {0};
    memcpy(dx, du, sizeof dx);
    double dr = __enzyme_fwddiff_rp931673((void *)rp931673, enzyme_dup, x, dx, enzyme_dup, u[5], du[5], enzyme_dup, y, dy);
    memcpy(o, y, sizeof y);
    memcpy(dout, dy, sizeof dy);
    dout[1] = dr;
    (void)n;
}

static void rp931673__rev(const double *u, const double *w, int n, double *o, double *gu) {
    double x[5], dx[5] = {0};
    memcpy(x, u, sizeof x);
    double y[1] = {0.0}, dy[1] = {0};
    memcpy(dy, w, sizeof dy);
    double g = __enzyme_autodiff_rp931673((void *)rp931673, enzyme_dup, x, dx, enzyme_out, u[5], enzyme_dup, y, dy);
    memcpy(gu, dx, sizeof dx);
    gu[5] = g;
    memcpy(o, y, sizeof y);
    (void)n; (void)w;
}


/* d o / d u_j by Ridders' extrapolation of central differences (as the tester) */
static void ridders(const double *u, int n, int j, double *best) {
    double a[10][10][2], err[2], up[6], op[2], om[2], h = 0.01;
    for (int i = 0; i < 2; i++)
        err[i] = INFINITY;
    for (int k = 0; k < 10; k++, h /= 1.4) {
        memcpy(up, u, sizeof up);
        up[j] = u[j] + h;
        rp931673__eval(up, n, op);
        up[j] = u[j] - h;
        rp931673__eval(up, n, om);
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
    const double u[6] = {0.6034628892137283, 0.508251151541872, 1.0532234781991408, -0.8508317649817596, -0.7546727339512681, -0.37648960090389094};
    const int n = 0;
    double o[2], op[2], t[6], d[2], w[2], g[6], g_ret[6], col[2];
    double fd[2][6];
    rp931673__eval(u, n, o);
    for (int j = 0; j < 6; j++) {
        ridders(u, n, j, col);
        for (int i = 0; i < 2; i++)
            fd[i][j] = col[i];
    }
    for (int j = 0; j < 6; j++) { /* forward mode: column j */
        memset(t, 0, sizeof t);
        t[j] = 1.0;
        rp931673__fwd(u, t, n, op, d);
        for (int i = 0; i < 2; i++)
            printf("grad fwd.o%d.u%d %.17g %.17g\n", i, j, d[i], fd[i][j]);
        for (int i = 0; j == 0 && i < 1; i++)
            printf("grad fwd.primal.y%d %.17g %.17g\n", i, op[i], o[i]);
    }
    memset(g_ret, 0, sizeof g_ret);
    if (1) { /* the result is always seeded with 1: its gradient alone */
        memset(w, 0, sizeof w);
        rp931673__rev(u, w, n, op, g_ret);
    }
    for (int s = 0; s < 2; s++) { /* reverse mode: row s */
        memset(w, 0, sizeof w);
        w[s] = 1.0;
        rp931673__rev(u, w, n, op, g);
        for (int j = 0; j < 6; j++)
            printf("grad rev.o%d.u%d %.17g %.17g\n", s, j, s < 1 ? g[j] - g_ret[j] : g[j], fd[s][j]);
        for (int i = 0; s == 0 && i < 1; i++)
            printf("grad rev.primal.y%d %.17g %.17g\n", i, op[i], o[i]);
    }
    return 0;
}
