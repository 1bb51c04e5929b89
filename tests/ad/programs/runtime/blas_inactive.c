// Runtime activity with BLAS: one array of each call is passed `enzyme_dup, a, a`
// (inactive at run time), so the rule's terms that read or write its derivative are
// skipped: ddot with y inactive, dgemv with A inactive, daxpy with x inactive, dgemm
// with B inactive (row and column major). Reverse mode against central differences of
// the active inputs (the inactive ones held fixed), forward mode against reverse, and
// the inactive arrays unchanged by the derivative calls.
// flags: -lopenblas -lm
// tol: rel=1e-6 abs=1e-8
// grads: 38
#include <cblas.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <enzyme/enzyme.h>

enum { M = 3, K = 2, N = 2 };

static int layout;

/* s = x.y + |A x + z[0..M)|^2 + |C|^2 / 4 where z[0..M) += 0.5 x (daxpy) first and
   C = Z B, Z = z as an M x K matrix, B a K x N one (dgemm) */
double loss(double *x, double *y, double *A, double *z, double *B) {
    double s = cblas_ddot(M, x, 1, y, 1);
    double v[M];
    memcpy(v, z, sizeof v);
    cblas_dgemv(layout, CblasNoTrans, M, M, 1.0, A, M, x, 1, 1.0, v, 1);
    s += cblas_ddot(M, v, 1, v, 1);
    cblas_daxpy(M, 0.5, x, 1, z, 1);
    double C[M * N];
    int row = layout == CblasRowMajor;
    cblas_dgemm(layout, CblasNoTrans, CblasNoTrans, M, N, K, 1.0, z, row ? K : M, B, row ? N : K, 0.0, C,
                row ? N : M);
    for (int i = 0; i < M * N; i++) s += C[i] * C[i] * 0.25;
    return s;
}

static double x[M], y[M], A[M * M], z[M * K], B[K * N];

static double ev(void) {
    double zz[M * K];
    memcpy(zz, z, sizeof zz);
    return loss(x, y, A, zz, B);
}

static double central(double *p) {
    double h = 1e-6, saved = *p;
    *p = saved + h;
    double up = ev();
    *p = saved - h;
    double down = ev();
    *p = saved;
    return (up - down) / (2 * h);
}

int main(void) {
    for (int i = 0; i < M; i++) x[i] = sin(0.3 + i), y[i] = cos(1.1 * i);
    for (int i = 0; i < M * K; i++) z[i] = 0.2 * i - 0.4;
    for (int i = 0; i < M * M; i++) A[i] = 0.5 * sin(2.0 + i);
    for (int i = 0; i < K * N; i++) B[i] = 0.7 * cos(0.5 + 3 * i);
    for (int l = 0; l < 2; l++) {
        layout = l ? CblasColMajor : CblasRowMajor;
        double dx[M] = {0}, dz[M * K] = {0}, zz[M * K], y0[M], A0[M * M], B0[K * N];
        memcpy(zz, z, sizeof zz);
        memcpy(y0, y, sizeof y0);
        memcpy(A0, A, sizeof A0);
        memcpy(B0, B, sizeof B0);
        __enzyme_autodiff((void *)loss, enzyme_runtime_activity, enzyme_dup, x, dx, enzyme_dup, y, y,
                          enzyme_dup, A, A, enzyme_dup, zz, dz, enzyme_dup, B, B);
        for (int i = 0; i < M; i++) printf("grad L%d_rev_x%d %.17g %.17g\n", l, i, dx[i], central(&x[i]));
        for (int i = 0; i < M * K; i++) printf("grad L%d_rev_z%d %.17g %.17g\n", l, i, dz[i], central(&z[i]));
        for (int i = 0; i < M + M * K; i++) {
            double tx[M] = {0}, tz[M * K] = {0};
            if (i < M) tx[i] = 1; else tz[i - M] = 1;
            memcpy(zz, z, sizeof zz);
            double t = __enzyme_fwddiff((void *)loss, enzyme_runtime_activity, enzyme_dup, x, tx, enzyme_dup, y, y,
                                        enzyme_dup, A, A, enzyme_dup, zz, tz, enzyme_dup, B, B);
            printf("grad L%d_fwd_%d %.17g %.17g\n", l, i, t, i < M ? dx[i] : dz[i - M]);
        }
        double dev = 0;
        for (int i = 0; i < M; i++) dev += fabs(y[i] - y0[i]);
        for (int i = 0; i < M * M; i++) dev += fabs(A[i] - A0[i]);
        for (int i = 0; i < K * N; i++) dev += fabs(B[i] - B0[i]);
        printf("grad L%d_inactive_unchanged %.17g %.17g\n", l, dev, 0.0);
    }
    return 0;
}
