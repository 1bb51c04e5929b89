// LAPACK's dlascl (A = (cto / cfrom) A on a full matrix or a triangle) in reverse mode,
// and gemm's dC = beta dC made through the program's own lascl as Enzyme makes it:
// Fortran dgemm_ beside OpenBLAS's dlascl_, and CBLAS cblas_dgemm beside a
// cblas_dlascl the program defines over dlascl_ (Enzyme's name for the CBLAS form;
// both layouts, every transpose pair). Against central differences.
// tol: rel=1e-6 abs=1e-8
// grads: 288
// flags: -lopenblas -lm
#include <cblas.h>
#include "../blas_check.h"

void __enzyme_autodiff(void *, ...);
void dgemm_(const char *, const char *, const int *, const int *, const int *, const double *,
            const double *, const int *, const double *, const int *, const double *, double *,
            const int *);
void dlascl_(const char *, const int *, const int *, const double *, const double *, const int *,
             const int *, double *, const int *, int *);

/* the CBLAS form Enzyme calls: a row-major matrix is its transpose in column-major */
void cblas_dlascl(int layout, char type, int kl, int ku, double cfrom, double cto, int m, int n,
                  double *a, int lda, int *info) {
    char t = type;
    if (layout == CblasRowMajor) {
        int swap = m;
        m = n, n = swap;
        t = type == 'U' ? 'L' : type == 'L' ? 'U' : type;
    }
    dlascl_(&t, &kl, &ku, &cfrom, &cto, &m, &n, a, &lda, info);
}

enum { SA = 16, SB = 16, SC = 16 };
enum { M = 3, N = 2, K = 3, LD = 4 };
static const int m = M, n = N, k = K, ld = LD, zero = 0;
static char ta, tb;
static int lay, cta, ctb;

static double weigh(const double *A, const double *C) {
    double s = 0;
    for (int i = 0; i < SC; i++) s += C[i] * (1 + 0.25 * i) + 0.3 * C[i] * C[i];
    for (int i = 0; i < SA; i++) s += 0.2 * A[i] * A[i];
    return s;
}

double fortran_loss(double *A, double *B, double *C) {
    const double alpha = 0.7, beta = -0.4, from = 2.0, to = 3.0;
    int info;
    dgemm_(&ta, &tb, &m, &n, &k, &alpha, A, &ld, B, &ld, &beta, C, &ld);
    dlascl_("G", &zero, &zero, &from, &to, &m, &n, C, &ld, &info);
    dlascl_("U", &zero, &zero, &to, &from, &k, &k, A, &ld, &info);
    return weigh(A, C);
}

double cblas_loss(double *A, double *B, double *C) {
    int info;
    cblas_dgemm(lay, cta, ctb, M, N, K, 0.7, A, LD, B, LD, -0.4, C, LD);
    cblas_dlascl(lay, 'L', 0, 0, 4.0, 3.0, K, K, A, LD, &info);
    cblas_dlascl(lay, 'G', 0, 0, 1.5, -2.0, M, N, C, LD, &info);
    return weigh(A, C);
}

static double A0[SA], B0[SB], C0[SC];
static double (*loss)(double *, double *, double *);
static double ev(void) {
    double A[SA], B[SB], C[SC];
    memcpy(A, A0, sizeof A), memcpy(B, B0, sizeof B), memcpy(C, C0, sizeof C);
    return loss(A, B, C);
}

__attribute__((noinline)) static void grad_fortran(double *A, double *dA, double *B, double *dB,
                                                   double *C, double *dC) {
    __enzyme_autodiff((void *)fortran_loss, A, dA, B, dB, C, dC);
}

__attribute__((noinline)) static void grad_cblas(double *A, double *dA, double *B, double *dB,
                                                 double *C, double *dC) {
    __enzyme_autodiff((void *)cblas_loss, A, dA, B, dB, C, dC);
}

static void run(const char *tag) {
    double A[SA], B[SB], C[SC], dA[SA] = {0}, dB[SB] = {0}, dC[SC] = {0};
    memcpy(A, A0, sizeof A), memcpy(B, B0, sizeof B), memcpy(C, C0, sizeof C);
    (loss == fortran_loss ? grad_fortran : grad_cblas)(A, dA, B, dB, C, dC);
    check_array(tag, "A", ev, A0, dA, SA / 2);
    check_array(tag, "B", ev, B0, dB, SB / 2);
    check_array(tag, "C", ev, C0, dC, SC / 2);
}

int main(void) {
    static const char flags[4][2] = {{'N', 'n'}, {'t', 'N'}, {'n', 'T'}, {'T', 't'}};
    fill(A0, SA, 0.1), fill(B0, SB, 1.1), fill(C0, SC, 2.1);
    char tag[32];
    for (int f = 0; f < 4; f++) {
        ta = flags[f][0], tb = flags[f][1];
        loss = fortran_loss;
        snprintf(tag, sizeof tag, "f%d", f);
        run(tag);
        for (int l = 0; l < 2; l++) {
            lay = l ? CblasRowMajor : CblasColMajor;
            cta = f & 1 ? CblasTrans : CblasNoTrans, ctb = f & 2 ? CblasTrans : CblasNoTrans;
            loss = cblas_loss;
            snprintf(tag, sizeof tag, "c%d.l%d", f, l);
            run(tag);
        }
    }
    return 0;
}
