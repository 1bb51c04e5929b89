// The Fortran interface (dtrsm_, dtrmm_, dtrsv_, dtrmv_: everything by reference,
// column-major, flags as letters of either case) in reverse mode, one chain per flag
// combination: the solution trsm writes into B is overwritten by a trmm right after (the
// reverse pass needs the solution: kept by a copy after the call), and x is solved and
// multiplied twice in a loop; leading dimensions larger than the matrices. Against central
// differences.
// tol: rel=1e-6 abs=1e-8
// grads: 720
// flags: -lopenblas
#include "../blas_check.h"

void __enzyme_autodiff(void *, ...);
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

double loss(double alpha, double *A, double *B, double *x) {
    const double scale = 0.7;
    dtrsm_(&sd, &ul, &tr, &dg, &m, &n, &alpha, A, &lda, B, &ldb);
    dtrmm_(&sd, &ul2, &tr2, &dg2, &m, &n, &scale, A, &lda, B, &ldb);
    for (int r = 0; r < 2; r++) {
        dtrsv_(&ul2, &tr, &dg, &k, A, &lda, x, &two);
        dtrmv_(&ul, &tr2, &dg2, &k, A, &lda, x, &two);
    }
    double s = 0;
    for (int i = 0; i < SB; i++) s += (1 + 0.25 * i) * B[i] + 0.3 * B[i] * B[i];
    for (int i = 0; i < SV; i++) s += (0.5 + 0.1 * i) * x[i] * x[i] + x[i];
    return s;
}

static double A0[SA], B0[SB], x0[SV], alpha0 = 0.9;
static double ev(void) {
    double B[SB], x[SV];
    memcpy(B, B0, sizeof B);
    memcpy(x, x0, sizeof x);
    return loss(alpha0, A0, B, x);
}

int main(void) {
    static const char sides[2] = {'L', 'r'}, uplos[2][2] = {{'U', 'l'}, {'L', 'u'}};
    static const char transes[2][2] = {{'N', 't'}, {'T', 'n'}}, diags[2][2] = {{'n', 'U'}, {'u', 'N'}};
    fill(B0, SB, 2.1);
    fill(x0, SV, 3.1);
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
                    double A[SA], B[SB], x[SV], dA[SA] = {0}, dB[SB] = {0}, dx[SV] = {0};
                    memcpy(A, A0, sizeof A);
                    memcpy(B, B0, sizeof B);
                    memcpy(x, x0, sizeof x);
                    double (*g)(void *, ...) = (double (*)(void *, ...))__enzyme_autodiff;
                    double da = g((void *)loss, alpha0, A, dA, B, dB, x, dx);
                    snprintf(tag, sizeof tag, "%c%c%c%c", sd, ul, tr, dg);
                    check_array(tag, "A", ev, A0, dA, SA);
                    check_array(tag, "B", ev, B0, dB, SB);
                    check_array(tag, "x", ev, x0, dx, SV);
                    grad(tag, "alpha", 0, da, central(ev, &alpha0));
                }
    return 0;
}
