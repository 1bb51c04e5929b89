// A sparse (CSR) SPD matrix built from the inputs and solved by a fixed number of
// conjugate-gradient steps with an early exit, malloc'd work vectors, memset/memcpy; a
// lookup table filled once in a static array on first use; a matrix as an array of
// calloc'd row pointers; a constant parsed with atof from a snprintf'd string
// (inactive). Gradient of |x|^2 of the solution and the rest with respect to the
// matrix entries' parameters. (ClangEnzyme-19: "No augmented forward pass found for
// strtod".) Reverse mode.
// Reference: central finite differences (the table index does not change within the
// differences' steps at this point).
// tol: rel=1e-6 abs=1e-8
// grads: 5
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
extern int enzyme_dup, enzyme_const, enzyme_out;
void __enzyme_autodiff(void *, ...);

typedef struct { int n, nnz; int *rowptr, *col; double *val; } CSR;
static void spmv(const CSR *A, const double *x, double *y) {
    for (int i = 0; i < A->n; i++) {
        double s = 0;
        for (int k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) s += A->val[k] * x[A->col[k]];
        y[i] = s;
    }
}
static double dot(const double *a, const double *b, int n) { double s = 0; for (int i = 0; i < n; i++) s += a[i] * b[i]; return s; }
static void cg(const CSR *A, const double *b, double *x, int iters) {
    int n = A->n;
    double *r = malloc(n * sizeof *r), *p = malloc(n * sizeof *p), *Ap = malloc(n * sizeof *Ap);
    memset(x, 0, n * sizeof *x);
    memcpy(r, b, n * sizeof *r); memcpy(p, b, n * sizeof *p);
    double rr = dot(r, r, n);
    for (int it = 0; it < iters; it++) {
        spmv(A, p, Ap);
        double alpha = rr / dot(p, Ap, n);
        for (int i = 0; i < n; i++) { x[i] += alpha * p[i]; r[i] -= alpha * Ap[i]; }
        double rr2 = dot(r, r, n);
        if (rr2 < 1e-30) break;
        for (int i = 0; i < n; i++) p[i] = r[i] + rr2 / rr * p[i];
        rr = rr2;
    }
    free(r); free(p); free(Ap);
}
static double lookup(double t) {
    static double table[64];
    static int ready = 0;
    if (!ready) { for (int i = 0; i < 64; i++) table[i] = exp(-0.1 * i); ready = 1; }
    int k = (int)(t * 10) & 63;
    return table[k] * t;
}
double f(const double *v) {
    // 1D Laplacian-like SPD matrix, values from v
    enum { N = 5 };
    int rowptr[N + 1], col[3 * N]; double val[3 * N]; int nnz = 0;
    for (int i = 0; i < N; i++) {
        rowptr[i] = nnz;
        if (i > 0) { col[nnz] = i - 1; val[nnz++] = -v[i] * 0.3; }
        col[nnz] = i; val[nnz++] = 2.0 + v[i] * v[i];
        if (i + 1 < N) { col[nnz] = i + 1; val[nnz++] = -v[i + 1] * 0.3; }
    }
    rowptr[N] = nnz;
    CSR A = {N, nnz, rowptr, col, val};
    double b[N], x[N];
    for (int i = 0; i < N; i++) b[i] = 1.0 + 0.1 * i;
    cg(&A, b, x, N);
    double **M = malloc(3 * sizeof *M);
    for (int i = 0; i < 3; i++) { M[i] = calloc(3, sizeof **M); for (int j = 0; j < 3; j++) M[i][j] = v[(i + j) % N] * (i + 1); }
    double s = dot(x, x, N) + lookup(v[4]);
    for (int i = 0; i < 3; i++) { s += M[i][i] * M[i][(i + 1) % 3]; free(M[i]); }
    free(M);
    char buf[32]; snprintf(buf, sizeof buf, "%.3f", 2.5); s *= atof(buf);
    return s;
}
int main(void) {
    double x[5] = {0.3, 0.2, 0.4, 0.7, 1.13}, dx[5] = {0}, h = 1e-6;
    __enzyme_autodiff((void *)f, enzyme_dup, x, dx);
    for (int i = 0; i < 5; i++) {
        double xp[5], xm[5];
        memcpy(xp, x, sizeof x); memcpy(xm, x, sizeof x);
        xp[i] += h; xm[i] -= h;
        printf("grad x%d %.17g %.17g\n", i, dx[i], (f(xp) - f(xm)) / (2 * h));
    }
    return 0;
}
