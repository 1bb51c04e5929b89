// CBLAS level 1 in reverse mode, in double: dot, nrm2, asum, axpy, scal and copy, with
// increments 1, 2 and negative ones (BLAS walks those vectors from the end; nrm2, asum
// and scal ignore a vector whose increment is not positive, and so must their
// derivatives), alpha active. Against central differences.
// tol: rel=1e-6 abs=1e-8
// grads: 222
// flags: -lopenblas
#include <cblas.h>
#include "../blas_check.h"

void __enzyme_autodiff(void *, ...);

enum { N = 4, S = 12 };
static int ix, iy;

/* every routine once; y is overwritten by axpy, scal and copy after dot read it */
double loss(double alpha, double *x, double *y, double *z) {
    double s = cblas_ddot(N, x, ix, y, iy);
    s += 0.5 * cblas_dnrm2(N, x, ix) * cblas_dasum(N, y, iy);
    cblas_daxpy(N, alpha, x, ix, y, iy);
    cblas_dscal(N, alpha * alpha, y, iy);
    s += cblas_ddot(N, y, iy, y, iy);
    cblas_dcopy(N, y, iy, z, ix);
    cblas_dscal(N, 1.5, z, ix);
    for (int i = 0; i < S; i++) s += (1 + 0.3 * i) * z[i] * z[i] + 0.1 * y[i];
    return s;
}

static double xs[S], ys[S], zs[S], alpha0 = 0.8;
static double ev(void) {
    double x[S], y[S], z[S];
    memcpy(x, xs, sizeof x);
    memcpy(y, ys, sizeof y);
    memcpy(z, zs, sizeof z);
    return loss(alpha0, x, y, z);
}

int main(void) {
    static const int incs[6][2] = {{1, 1}, {2, 1}, {1, -2}, {-1, 2}, {-2, -1}, {3, 2}};
    fill(xs, S, 0.3);
    fill(ys, S, 1.1);
    fill(zs, S, 2.7);
    char tag[32];
    for (int c = 0; c < 6; c++) {
        ix = incs[c][0];
        iy = incs[c][1];
        double x[S], y[S], z[S], dx[S] = {0}, dy[S] = {0}, dz[S] = {0};
        memcpy(x, xs, sizeof x);
        memcpy(y, ys, sizeof y);
        memcpy(z, zs, sizeof z);
        double (*g)(void *, ...) = (double (*)(void *, ...))__enzyme_autodiff;
        double dalpha = g((void *)loss, alpha0, x, dx, y, dy, z, dz);
        snprintf(tag, sizeof tag, "i%d", c);
        check_array(tag, "x", ev, xs, dx, S);
        check_array(tag, "y", ev, ys, dy, S);
        check_array(tag, "z", ev, zs, dz, S);
        grad(tag, "alpha", 0, dalpha, central(ev, &alpha0));
    }
    return 0;
}
