// Forward mode through LAPACK's Cholesky factorisation (dpotrf_, either triangle, letters of
// either case), dlascl_ and dlacpy_, with gemm and syrk beside them (their dC = beta dC then goes
// through the program's lascl, as Enzyme's does), in the Fortran ABI on OpenBLAS; then the
// same through CBLAS-form wrappers the program defines over LAPACK (cblas_dpotrf,
// cblas_dlacpy, cblas_dlascl: the names Enzyme's rules call), both layouts. Every input
// moves along a direction; checked: the tangent of the result and of every entry of the
// factor and of C, against central differences along the same direction.
// tol: rel=1e-6 abs=1e-8
// grads: 296
// flags: -lopenblas -lm
#include <cblas.h>
#include "../blas_check.h"

double __enzyme_fwddiff(void *, ...);
void dpotrf_(const char *, const int *, double *, const int *, int *);
void dlacpy_(const char *, const int *, const int *, const double *, const int *, double *,
             const int *);
void dlascl_(const char *, const int *, const int *, const double *, const double *, const int *,
             const int *, double *, const int *, int *);
void dgemm_(const char *, const char *, const int *, const int *, const int *, const double *,
            const double *, const int *, const double *, const int *, const double *, double *,
            const int *);
void dsyrk_(const char *, const char *, const int *, const int *, const double *, const double *,
            const int *, const double *, double *, const int *);

/* CBLAS-form LAPACK over the Fortran routines: a row-major matrix is its transpose */
static char lapack_uplo(int layout, int uplo) {
    int upper = uplo == CblasUpper || uplo == 'U' || uplo == 'u';
    return (layout == CblasRowMajor) == upper ? 'L' : 'U';
}
void cblas_dpotrf(int layout, int uplo, int n, double *a, int lda, int *info) {
    char u = lapack_uplo(layout, uplo);
    dpotrf_(&u, &n, a, &lda, info);
}
void cblas_dlacpy(int layout, char uplo, int m, int n, double *a, int lda, double *b, int ldb) {
    char u = uplo == 'U' || uplo == 'u' || uplo == 'L' || uplo == 'l' ? lapack_uplo(layout, uplo) : 'G';
    if (layout == CblasRowMajor) {
        int swap = m;
        m = n, n = swap;
    }
    dlacpy_(&u, &m, &n, a, &lda, b, &ldb);
}
void cblas_dlascl(int layout, char type, int kl, int ku, double cfrom, double cto, int m, int n,
                  double *a, int lda, int *info) {
    char t = type == 'U' || type == 'u' || type == 'L' || type == 'l' ? lapack_uplo(layout, type) : type;
    if (layout == CblasRowMajor) {
        int swap = m;
        m = n, n = swap;
    }
    dlascl_(&t, &kl, &ku, &cfrom, &cto, &m, &n, a, &lda, info);
}

enum { N = 4, LD = 5, SA = LD * N, SC = 16 };
static const int n = N, ld = LD, k = 3, zero = 0;
static char uplo_letter;
static int lay, cuplo;

/* the factor of S = A A^T + n I (positive definite), then products with it */
double fortran_f(double *A, double *S, double *C) {
    const double one = 1.0, half = 0.5, beta = -0.4, from = 2.0, to = 3.0;
    int info;
    dsyrk_(&uplo_letter, "N", &n, &k, &one, A, &ld, &one, S, &ld);
    dpotrf_(&uplo_letter, &n, S, &ld, &info);
    dgemm_("T", "N", &n, &n, &n, &half, S, &ld, S, &ld, &beta, C, &n);
    dsyrk_(&uplo_letter, "T", &n, &n, &half, S, &ld, &beta, C, &n);
    dlascl_("G", &zero, &zero, &from, &to, &n, &n, C, &n, &info);
    double T[SC] = {0};
    dlacpy_(&uplo_letter, &n, &n, S, &ld, T, &n);
    double s = 0;
    for (int i = 0; i < SC; i++) s += C[i] * (1 + 0.25 * i) + T[i] * T[i] * (0.5 - 0.1 * i);
    return s;
}

double cblas_f(double *A, double *S, double *C) {
    int info;
    cblas_dsyrk(lay, cuplo, CblasNoTrans, N, 3, 1.0, A, LD, 1.0, S, LD);
    cblas_dpotrf(lay, cuplo, N, S, LD, &info);
    cblas_dgemm(lay, CblasTrans, CblasNoTrans, N, N, N, 0.5, S, LD, S, LD, -0.4, C, N);
    cblas_dsyrk(lay, cuplo, CblasTrans, N, N, 0.5, S, LD, -0.4, C, N);
    double s = 0;
    for (int i = 0; i < SC; i++) s += C[i] * (1 + 0.25 * i);
    return s;
}

static double A0[SA], S0[SA], C0[SC], dA0[SA], dS0[SA], dC0[SC];
static double Sout[SA], Cout[SC];
static int use_cblas;

static void move(double *out, const double *base, const double *dir, int len, double t) {
    for (int i = 0; i < len; i++) out[i] = base[i] + t * dir[i];
}

static double at(double t) {
    double A[SA];
    move(A, A0, dA0, SA, t), move(Sout, S0, dS0, SA, t), move(Cout, C0, dC0, SC, t);
    return use_cblas ? cblas_f(A, Sout, Cout) : fortran_f(A, Sout, Cout);
}

static void check(const char *tag, double d, const double *tS, const double *tC) {
    double h = 1e-6, Su[SA], Cu[SC];
    double up = at(h);
    memcpy(Su, Sout, sizeof Su), memcpy(Cu, Cout, sizeof Cu);
    double down = at(-h);
    grad(tag, "f", 0, d, (up - down) / (2 * h));
    for (int i = 0; i < SA; i++) grad(tag, "S", i, tS[i], (Su[i] - Sout[i]) / (2 * h));
    for (int i = 0; i < SC; i++) grad(tag, "C", i, tC[i], (Cu[i] - Cout[i]) / (2 * h));
}

__attribute__((noinline)) static double tangent_fortran(double *A, double *dA, double *S, double *dS,
                                                        double *C, double *dC) {
    return __enzyme_fwddiff((void *)fortran_f, A, dA, S, dS, C, dC);
}

__attribute__((noinline)) static double tangent_cblas(double *A, double *dA, double *S, double *dS,
                                                      double *C, double *dC) {
    return __enzyme_fwddiff((void *)cblas_f, A, dA, S, dS, C, dC);
}

static void run(const char *tag) {
    double A[SA], S[SA], C[SC], dA[SA], dS[SA], dC[SC];
    memcpy(A, A0, sizeof A), memcpy(S, S0, sizeof S), memcpy(C, C0, sizeof C);
    memcpy(dA, dA0, sizeof A), memcpy(dS, dS0, sizeof S), memcpy(dC, dC0, sizeof C);
    double d = (use_cblas ? tangent_cblas : tangent_fortran)(A, dA, S, dS, C, dC);
    check(tag, d, dS, dC);
}

int main(void) {
    fill(A0, SA, 0.1), fill(C0, SC, 2.1), fill(dA0, SA, 5.1), fill(dS0, SA, 6.1), fill(dC0, SC, 7.1);
    for (int i = 0; i < SA; i++) S0[i] = 0.1 * sin(1.3 * i);
    for (int i = 0; i < N; i++) S0[i * LD + i] = N;  /* S = A A^T + n I + a small asymmetric part */
    static const char letters[4] = {'U', 'l', 'u', 'L'};
    char tag[32];
    for (int u = 0; u < 4; u++) {
        uplo_letter = letters[u];
        use_cblas = 0;
        snprintf(tag, sizeof tag, "f.%c", uplo_letter);
        run(tag);
    }
    for (int l = 0; l < 2; l++)
        for (int u = 0; u < 2; u++) {
            lay = l ? CblasRowMajor : CblasColMajor, cuplo = u ? CblasLower : CblasUpper;
            use_cblas = 1;
            snprintf(tag, sizeof tag, "c.l%du%d", l, u);
            run(tag);
        }
    return 0;
}
