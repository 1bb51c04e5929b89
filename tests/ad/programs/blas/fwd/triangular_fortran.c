// Forward mode through the Fortran interface (dtrsm_, dtrmm_, dtrsv_, dtrmv_: by reference,
// column-major, flags as letters of either case), one chain per flag combination, every
// input moving along a direction; leading dimensions larger than the matrices. Checked:
// the tangent of the result and of every entry of B and x, against central differences.
// tol: rel=1e-6 abs=1e-8
// grads: 400
// flags: -lopenblas
#include "../blas_check.h"

double __enzyme_fwddiff(void *, ...);
void dtrsm_(const char *, const char *, const char *, const char *, const int *, const int *,
            const double *, const double *, const int *, double *, const int *);
void dtrmm_(const char *, const char *, const char *, const char *, const int *, const int *,
            const double *, const double *, const int *, double *, const int *);
void dtrsv_(const char *, const char *, const char *, const int *, const double *, const int *,
            double *, const int *);
void dtrmv_(const char *, const char *, const char *, const int *, const double *, const int *,
            double *, const int *);

enum { SA = 20, SB = 16, SV = 8 };
static const int m = 3, n = 2, ldb = 5, two = 2;
static int k, lda;
static char sd, ul, tr, dg, ul2, tr2, dg2;

double f(double alpha, double *A, double *B, double *x) {
    const double scale = 0.7;
    dtrsm_(&sd, &ul, &tr, &dg, &m, &n, &alpha, A, &lda, B, &ldb);
    dtrmm_(&sd, &ul2, &tr2, &dg2, &m, &n, &scale, A, &lda, B, &ldb);
    dtrsv_(&ul2, &tr, &dg, &k, A, &lda, x, &two);
    dtrmv_(&ul, &tr2, &dg2, &k, A, &lda, x, &two);
    double s = 0;
    for (int i = 0; i < SB; i++) s += (1 + 0.25 * i) * B[i] + 0.3 * B[i] * B[i];
    for (int i = 0; i < SV; i++) s += (0.5 + 0.1 * i) * x[i] * x[i] + x[i];
    return s;
}

static double A0[SA], B0[SB], x0[SV], alpha0 = 0.9, dA0[SA], dB0[SB], dx0[SV], dalpha0 = 0.4;
static double Bout[SB], xout[SV];

static void move(double *to, const double *base, const double *dir, int len, double t) {
    for (int i = 0; i < len; i++) to[i] = base[i] + t * dir[i];
}

static double at(double t) {
    double A[SA];
    move(A, A0, dA0, SA, t), move(Bout, B0, dB0, SB, t), move(xout, x0, dx0, SV, t);
    return f(alpha0 + t * dalpha0, A, Bout, xout);
}

int main(void) {
    static const char sides[2] = {'L', 'r'}, uplos[2][2] = {{'U', 'l'}, {'L', 'u'}};
    static const char transes[2][2] = {{'N', 't'}, {'T', 'n'}}, diags[2][2] = {{'n', 'U'}, {'u', 'N'}};
    fill(B0, SB, 2.1), fill(x0, SV, 3.1), fill(dA0, SA, 5.1), fill(dB0, SB, 6.1), fill(dx0, SV, 7.1);
    char tag[32];
    for (int s = 0; s < 2; s++)
        for (int u = 0; u < 2; u++)
            for (int t = 0; t < 2; t++)
                for (int d = 0; d < 2; d++) {
                    sd = sides[s], ul = uplos[u][0], ul2 = uplos[u][1], tr = transes[t][0];
                    tr2 = transes[t][1], dg = diags[d][0], dg2 = diags[d][1];
                    k = s ? n : m;
                    lda = k + 2;
                    fill(A0, SA, 0.1);
                    for (int i = 0; i < SA; i++) A0[i] *= 0.4;
                    for (int i = 0; i < k; i++) A0[i * (lda + 1)] += 2.0 + 0.5 * i;
                    double A[SA], B[SB], x[SV], dA[SA], dB[SB], dx[SV];
                    memcpy(A, A0, sizeof A), memcpy(B, B0, sizeof B), memcpy(x, x0, sizeof x);
                    memcpy(dA, dA0, sizeof A), memcpy(dB, dB0, sizeof B), memcpy(dx, dx0, sizeof x);
                    double d1 = __enzyme_fwddiff((void *)f, alpha0, dalpha0, A, dA, B, dB, x, dx);
                    double h = 1e-6, Bu[SB], xu[SV], up = at(h);
                    memcpy(Bu, Bout, sizeof Bu), memcpy(xu, xout, sizeof xu);
                    double down = at(-h);
                    snprintf(tag, sizeof tag, "%c%c%c%c", sd, ul, tr, dg);
                    grad(tag, "f", 0, d1, (up - down) / (2 * h));
                    for (int i = 0; i < SB; i++) grad(tag, "B", i, dB[i], (Bu[i] - Bout[i]) / (2 * h));
                    for (int i = 0; i < SV; i++) grad(tag, "x", i, dx[i], (xu[i] - xout[i]) / (2 * h));
                }
    return 0;
}
