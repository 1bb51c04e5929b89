// a local array written by an SSE2 xor-negated copy, then one element read back as
// uint64_t and negated again: the read is typed only once the copy's stores are active,
// which they became only after the sign steps turned into fneg, after the last round of
// retyping; the element's derivative was lost
// Reduced from tests/randprog seed 932758 (found at -O0). Forward and reverse
// mode against finite differences (Ridders) at the failing point, and the
// primal results of the derivative calls against the plain call.
// tol: rel=1e-6 abs=4.9e-07
// grads: 54
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern int enzyme_dup, enzyme_const, enzyme_out;

#include <stdint.h>
#include <emmintrin.h>
#include <stdint.h>
#include <emmintrin.h>
double rp932758_bits7(const double *p) {
    uint64_t b;
    memcpy(&b, p, sizeof b);
    b ^= 0x8000000000000000ULL;
    double r;
    memcpy(&r, &b, sizeof r);
    return r;
}
static const double rp932758_W14[8] = {-1.53, 0.461, 1.01, -0.573, 0.596, -1.4, -1.18, 1.5};
static void rp932758(const double *x, double s0, double s1, double *y) {
    double in1 = x[0];
    double t2;
    if (s1 >= -0.52) {
        t2 = asin(0.49 * sin((in1 * s1)));
    }
    else if (tan(0.47 * tanh(s1)) <= 0.00773) {
        t2 = sinh((s1 + in1));
    }
    else {
        t2 = pow(asin(0.56 * sin(s1)), 3.0);
    }
    double v3 = t2;
    double s4[6];
    for (int i5 = 0; i5 < 6; i5 += 2) {
        _mm_storeu_si128((__m128i *)(s4 + i5), _mm_xor_si128(_mm_loadu_si128((const __m128i *)(x + i5)), _mm_set1_epi64x((long long)0x8000000000000000ULL)));
    }
    double v6 = -0.568 * s4[4] + (v3 * s4[4]);
    double v8 = rp932758_bits7(&s4[5]);
    double v9 = v3;
    double acc10 = v8;
    for (int i11 = 0; i11 < 10; i11++) {
        acc10 = 0.31 * acc10 + 0.69 * pow(1.37 + (s4[i11 % 6] / (1.66 + v8 * v8)) * (s4[i11 % 6] / (1.66 + v8 * v8)), 0.46);
    }
    double acc12 = v9;
    for (int i13 = 0; i13 < 4; i13++) {
        acc12 = 0.71 * acc12 + 0.29 * sqrt(1.29 + x[i13] * x[i13]);
    }
    double b15[4];
    for (int i16 = 0; i16 < 4; i16++) {
        b15[i16] = (acc12 + (-1.18 * (i16 * 0.255) + -1.39));
    }
    const double *q17 = (fma(sin(acc12), v8, 0.64) > -0.057) ? b15 : rp932758_W14;
    double sum18 = 0.0;
    for (int i19 = 0; i19 < 4; i19++) {
        sum18 += 0.301 * (q17[i19] + (acc12 + v9));
    }
    double b20[8] = {pow(0.69 + (sum18 * 0.0499) * (sum18 * 0.0499), -1.29), v8, tan(0.34 * sin(sin(acc12))), ((sum18 * 0.0499) * acc12), (acc12 - (sum18 * 0.0499)), ((sum18 * 0.0499) * acc12), v9, (0.43 * v6 + v9)};
    double *p21 = (in1 > 0.0) ? b15 : b20;
    p21[2] = (((-1.39 * p21[2] + acc12) * ((acc12 * p21[2]) * 0.0324)) * 0.0476);
    double v22 = -1.31 * b15[2] + -1.43 * b15[3] + cos(acc12);
    double v23 = -0.666 * b20[5];
    double v24 = (1.3 * v22 + (sum18 * 0.0499));
    double *m25 = (double *)malloc(sizeof *m25 * 7);
    for (int i26 = 0; i26 < 7; i26++) {
        m25[i26] = acosh(1.35 + acc10 * acc10);
    }
    double v27 = -0.465 * m25[4];
    double *m28 = calloc(4, sizeof(double));
    for (int i29 = 0; i29 < 4; i29++) {
        m28[i29] += atan(v27);
    }
    double v30 = 0.813 * m28[2] + -1.28 * m28[3] + atan(1.0);
    y[0] = v27 + 0.402 * v23;
    y[1] += fma(sqrt(1.57 + sin(v30) * sin(v30)), sin(v24), 0.90) + 0.485 * v24;
    y[2] = v30 + 0.443 * v24;
    free(m25);
    free(m28);
}

typedef struct { double d0; double d1; } rp932758__grad;
void __enzyme_fwddiff_rp932758(void *, ...);
rp932758__grad __enzyme_autodiff_rp932758(void *, ...);
static void rp932758__eval(const double *u, int n, double *o) {
    double x[6];
    memcpy(x, u, sizeof x);
    double y[3] = {0.0, -0.31, 0.0};
    rp932758(x, u[6], u[7], y);
    memcpy(o, y, sizeof y);
    (void)n;
}

static void rp932758__fwd(const double *u, const double *du, int n, double *o, double *dout) {
    double x[6], dx[6] = {0};
    memcpy(x, u, sizeof x);
    double y[3] = {0.0, -0.31, 0.0}, dy[3] = {0};
    memcpy(dx, du, sizeof dx);
    __enzyme_fwddiff_rp932758((void *)rp932758, enzyme_dup, x, dx, enzyme_dup, u[6], du[6], enzyme_dup, u[7], du[7], enzyme_dup, y, dy);
    memcpy(o, y, sizeof y);
    memcpy(dout, dy, sizeof dy);
    (void)n;
}

static void rp932758__rev(const double *u, const double *w, int n, double *o, double *gu) {
    double x[6], dx[6] = {0};
    memcpy(x, u, sizeof x);
    double y[3] = {0.0, -0.31, 0.0}, dy[3] = {0};
    memcpy(dy, w, sizeof dy);
    rp932758__grad g = __enzyme_autodiff_rp932758((void *)rp932758, enzyme_dup, x, dx, enzyme_out, u[6], enzyme_out, u[7], enzyme_dup, y, dy);
    memcpy(gu, dx, sizeof dx);
    gu[6] = g.d0;
    gu[7] = g.d1;
    memcpy(o, y, sizeof y);
    (void)n; (void)w;
}


/* d o / d u_j by Ridders' extrapolation of central differences (as the tester) */
static void ridders(const double *u, int n, int j, double *best) {
    double a[10][10][3], err[3], up[8], op[3], om[3], h = 0.01;
    for (int i = 0; i < 3; i++)
        err[i] = INFINITY;
    for (int k = 0; k < 10; k++, h /= 1.4) {
        memcpy(up, u, sizeof up);
        up[j] = u[j] + h;
        rp932758__eval(up, n, op);
        up[j] = u[j] - h;
        rp932758__eval(up, n, om);
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
    const double u[8] = {-0.6580692033419011, 0.9803977151731269, -0.9388814023710326, 0.8399113884781251, 0.30430033303322646, 0.5096791927666209, -1.1841538725722704, 0.9235084627887575};
    const int n = 0;
    double o[3], op[3], t[8], d[3], w[3], g[8], g_ret[8], col[3];
    double fd[3][8];
    rp932758__eval(u, n, o);
    for (int j = 0; j < 8; j++) {
        ridders(u, n, j, col);
        for (int i = 0; i < 3; i++)
            fd[i][j] = col[i];
    }
    for (int j = 0; j < 8; j++) { /* forward mode: column j */
        memset(t, 0, sizeof t);
        t[j] = 1.0;
        rp932758__fwd(u, t, n, op, d);
        for (int i = 0; i < 3; i++)
            printf("grad fwd.o%d.u%d %.17g %.17g\n", i, j, d[i], fd[i][j]);
        for (int i = 0; j == 0 && i < 3; i++)
            printf("grad fwd.primal.y%d %.17g %.17g\n", i, op[i], o[i]);
    }
    memset(g_ret, 0, sizeof g_ret);
    if (0) { /* the result is always seeded with 1: its gradient alone */
        memset(w, 0, sizeof w);
        rp932758__rev(u, w, n, op, g_ret);
    }
    for (int s = 0; s < 3; s++) { /* reverse mode: row s */
        memset(w, 0, sizeof w);
        w[s] = 1.0;
        rp932758__rev(u, w, n, op, g);
        for (int j = 0; j < 8; j++)
            printf("grad rev.o%d.u%d %.17g %.17g\n", s, j, s < 3 ? g[j] - g_ret[j] : g[j], fd[s][j]);
        for (int i = 0; s == 0 && i < 3; i++)
            printf("grad rev.primal.y%d %.17g %.17g\n", i, op[i], o[i]);
    }
    return 0;
}
