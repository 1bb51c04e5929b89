// Windows of x starting at indices the function itself updates: the inner loop's
// position k + j is rebuilt in the reverse pass from the cached start k (the index
// array is overwritten, so k cannot be reloaded), and x[k + j] is reloaded (x is
// never written). Reference: central differences of the primal, h = 1e-6 relative.
// tol: rel=1e-6 abs=1e-9
// grads: 10
#include <math.h>
#include <stdio.h>
#include <string.h>

extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);

enum { N = 10, R = 4, M = 3 };

double f(const double *x, int *idx, int rows, int m) {
    double acc = 0;
    for (int i = 0; i < rows; i++) {
        int k = idx[i];
        idx[i] = k + 2;
        for (int j = 0; j < m; j++) {
            double v = x[k + j];
            acc += v * v * (1.0 + 0.1 * j) + sin(v) * x[k];
        }
    }
    return acc;
}

static const int IDX0[R] = {0, 3, 5, 2};

static double primal(const double *x, int rows, int m) {
    int idx[R];
    memcpy(idx, IDX0, sizeof idx);
    return f(x, idx, rows, m);
}

int main(void) {
    volatile int vr = R, vm = M;
    int rows = vr, m = vm;
    double x[N], dx[N] = {0};
    int idx[R];
    memcpy(idx, IDX0, sizeof idx);
    for (int i = 0; i < N; i++) x[i] = 0.9 * cos(0.8 * i + 0.3);
    __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_const, idx, enzyme_const, rows, enzyme_const, m);
    for (int t = 0; t < N; t++) {
        double save = x[t], h = 1e-6 * fmax(1.0, fabs(save));
        x[t] = save + h;
        double fp = primal(x, rows, m);
        x[t] = save - h;
        double fm = primal(x, rows, m);
        x[t] = save;
        printf("grad dx[%d] %.17g %.17g\n", t, dx[t], (fp - fm) / (2 * h));
    }
    return 0;
}
