// Runtime activity with Eigen: an expression over a `Map<const Matrix>` of data passed
// enzyme_const and a `Map<Vector>` of active data. Eigen's expression objects hold
// both pointers, so without runtime activity this is a compile-time error (a pointer
// without a shadow stored into an object handed to a differentiated call); with the
// marker the const map's shadow is its own data. Reverse and forward mode against
// central differences.
// flags: -I/usr/include/eigen3
// tol: rel=1e-6 abs=1e-8
// grads: 6
#include <cstdio>
#include <Eigen/Dense>
#include <enzyme/enzyme.h>

using Mat = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic>;
using Vec = Eigen::Matrix<double, Eigen::Dynamic, 1>;

double f(const double *a, double *x, int n) {
    Eigen::Map<const Mat> A(a, n, n);
    Eigen::Map<Vec> X(x, n);
    Vec y = A * X + X;
    Mat M = A + X * X.transpose();
    return y.squaredNorm() + M.trace() + (A.array() * M.array()).sum();
}

int main() {
    const int n = 3;
    double a[9], x[3] = {0.5, -1, 2}, dx[3] = {0};
    for (int i = 0; i < 9; i++) a[i] = 0.1 * (i + 1) - 0.3 * (i % 4);
    __enzyme_autodiff<void>((void *)f, enzyme_runtime_activity, enzyme_const, a, enzyme_dup, x, dx,
                            enzyme_const, n);
    for (int i = 0; i < n; i++) {
        double h = 1e-6, s = x[i];
        x[i] = s + h;
        double up = f(a, x, n);
        x[i] = s - h;
        double down = f(a, x, n);
        x[i] = s;
        printf("grad rev_x%d %.17g %.17g\n", i, dx[i], (up - down) / (2 * h));
    }
    for (int i = 0; i < n; i++) {
        double tx[3] = {0, 0, 0};
        tx[i] = 1;
        double t = __enzyme_fwddiff<double>((void *)f, enzyme_runtime_activity, enzyme_const, a, enzyme_dup, x, tx,
                                            enzyme_const, n);
        printf("grad fwd_x%d %.17g %.17g\n", i, t, dx[i]);
    }
    return 0;
}
