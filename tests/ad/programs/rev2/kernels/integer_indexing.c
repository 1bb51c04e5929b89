// Inactive integer work mixed with active floating point: indices from a hash-like
// integer recurrence and a CSR sparse matrix-vector product through index arrays.
// tol: rel=1e-12 abs=1e-14
// grads: 6
#include <stdio.h>

extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);

enum { N = 6 };

/* y = A x with A in CSR (rowptr, col, val); loss = sum_i y_i^2 + x[h(i)] y_i */
double csr_loss(const double *x, const int *rowptr, const int *col, const double *val) {
    double loss = 0;
    unsigned hsh = 17;
    for (int i = 0; i < N; i++) {
        double y = 0;
        for (int p = rowptr[i]; p < rowptr[i + 1]; p++) y += val[p] * x[col[p]];
        hsh = hsh * 1103515245u + 12345u;
        int j = (int)((hsh >> 8) % N);
        loss += y * y + x[j] * y;
    }
    return loss;
}

int main(void) {
    const int rowptr[N + 1] = {0, 2, 3, 6, 7, 9, 11};
    const int col[11] = {0, 3, 1, 0, 2, 5, 4, 1, 5, 2, 3};
    const double val[11] = {1.0, -0.5, 2.0, 0.3, 1.5, -1.0, 0.7, 0.25, 1.1, -0.8, 0.6};
    double x[N] = {0.9, -0.4, 1.3, 0.2, -1.1, 0.5}, dx[N] = {0}, ref[N] = {0};
    __enzyme_autodiff((void *)csr_loss, enzyme_dup, x, dx, enzyme_const, rowptr, enzyme_const, col,
                      enzyme_const, val);
    unsigned hsh = 17;
    for (int i = 0; i < N; i++) {
        double y = 0;
        for (int p = rowptr[i]; p < rowptr[i + 1]; p++) y += val[p] * x[col[p]];
        hsh = hsh * 1103515245u + 12345u;
        int j = (int)((hsh >> 8) % N);
        double gy = 2 * y + x[j]; /* d loss / d y */
        for (int p = rowptr[i]; p < rowptr[i + 1]; p++) ref[col[p]] += gy * val[p];
        ref[j] += y;
    }
    for (int i = 0; i < N; i++) printf("grad dx[%d] %.17g %.17g\n", i, dx[i], ref[i]);
    return 0;
}
