// __enzyme_todense in reverse mode: a sparse vector (sorted indices + values) read
// and written by code written for a dense array. The view is made inside the
// differentiated function, so its loads and stores are calls of coo_load/coo_store,
// differentiated like any code: the gradient lands on the stored values. The dense
// pointer also goes through a noinline callee (a copy of it takes the view's
// arguments). Reference: central finite differences on the values.
// tol: rel=1e-6 abs=1e-8
// grads: 5
#include <stdint.h>
#include <stdio.h>

extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);
double *__enzyme_todense(void *, void *, ...);

enum { N = 12, NNZ = 5 };

/* entry k of the sparse vector sits at dense index idx[k]; other entries read as 0 */
static double coo_load(int64_t offset, const int *idx, double *val, int nnz) {
    int64_t i = offset / (int64_t)sizeof(double);
    for (int k = 0; k < nnz; k++)
        if (idx[k] == i)
            return val[k];
    return 0.0;
}

static void coo_store(double v, int64_t offset, const int *idx, double *val, int nnz) {
    int64_t i = offset / (int64_t)sizeof(double);
    for (int k = 0; k < nnz; k++)
        if (idx[k] == i)
            val[k] = v;
}

/* dense code: a weighted sum of squares and neighbour products */
__attribute__((noinline)) static double energy(const double *x, int n) {
    double e = 0.0;
    for (int i = 0; i + 1 < n; i++)
        e += (i + 1) * x[i] * x[i] + x[i] * x[i + 1];
    return e;
}

static double f(double *val, const int *idx, int nnz, int n) {
    double *x = __enzyme_todense((void *)coo_load, (void *)coo_store, idx, val, nnz);
    for (int i = 0; i < n; i += 3)
        x[i] = x[i] * x[i] + 0.5; /* stores through the view: into val where idx has i */
    return energy(x, n) + x[n - 1];
}

static double primal(double *val, const int *idx) {
    double copy[NNZ];
    for (int k = 0; k < NNZ; k++)
        copy[k] = val[k];
    return f(copy, idx, NNZ, N);
}

int main(void) {
    const int idx[NNZ] = {0, 3, 4, 7, 11};
    double val[NNZ] = {0.7, -1.3, 0.4, 2.1, -0.6};
    double work[NNZ], dval[NNZ] = {0};
    for (int k = 0; k < NNZ; k++)
        work[k] = val[k];
    __enzyme_autodiff((void *)f, enzyme_dup, work, dval, enzyme_const, idx, enzyme_const, NNZ,
                      enzyme_const, N);
    for (int k = 0; k < NNZ; k++) {
        double h = 1e-6 * (1.0 + (val[k] < 0 ? -val[k] : val[k]));
        double save = val[k];
        val[k] = save + h;
        double up = primal(val, idx);
        val[k] = save - h;
        double down = primal(val, idx);
        val[k] = save;
        printf("grad val[%d] %.17g %.17g\n", k, dval[k], (up - down) / (2 * h));
    }
    return 0;
}
