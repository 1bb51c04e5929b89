// Forward mode through Eigen's HouseholderQR with runtime activity: the least-squares
// solve of eigen_householder_qr.cpp, one tangent per input entry (a unit direction
// in a or b, the other input's tangent zero), then with b passed enzyme_const (its
// Map<const> shadow is its own data). Each tangent against central differences.
// flags: -I/usr/include/eigen3
// tol: rel=1e-6 abs=1e-8
// grads: 35
#include <cstdio>
#include <Eigen/Dense>
#include <enzyme/enzyme.h>

using Mat = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic>;
using Vec = Eigen::Matrix<double, Eigen::Dynamic, 1>;

double lstsq(const double *a, const double *b, int m, int n) {
    Eigen::Map<const Mat> A(a, m, n);
    Eigen::Map<const Vec> B(b, m);
    Eigen::HouseholderQR<Mat> qr(A);
    Vec x = qr.solve(B);
    double s = 0;
    for (int i = 0; i < n; i++) s += (i + 1.5) * x[i] + 0.25 * x[i] * x[i];
    return s;
}

static double fd(double *v, int i, const double *a, const double *b, int m, int n) {
    double h = 1e-6, s = v[i];
    v[i] = s + h;
    double up = lstsq(a, b, m, n);
    v[i] = s - h;
    double down = lstsq(a, b, m, n);
    v[i] = s;
    return (up - down) / (2 * h);
}

int main() {
    const int m = 5, n = 3;
    double a[m * n], b[m], da[m * n] = {0}, db[m] = {0};
    for (int i = 0; i < m * n; i++) a[i] = 0.3 * ((i * 7) % 11) - 1.1 + (i % (m + 1) == 0 ? 2.0 : 0.0);
    for (int i = 0; i < m; i++) b[i] = 0.5 * i - 0.8 + 0.1 * i * i;
    for (int i = 0; i < m * n; i++) {
        da[i] = 1.0;
        double t = __enzyme_fwddiff<double>((void *)lstsq, enzyme_runtime_activity, enzyme_dup, a, da,
                                            enzyme_dup, b, db, enzyme_const, m, enzyme_const, n);
        da[i] = 0.0;
        printf("grad a%d %.17g %.17g\n", i, t, fd(a, i, a, b, m, n));
    }
    for (int i = 0; i < m; i++) {
        db[i] = 1.0;
        double t = __enzyme_fwddiff<double>((void *)lstsq, enzyme_runtime_activity, enzyme_dup, a, da,
                                            enzyme_dup, b, db, enzyme_const, m, enzyme_const, n);
        db[i] = 0.0;
        printf("grad b%d %.17g %.17g\n", i, t, fd(b, i, a, b, m, n));
    }
    for (int i = 0; i < m * n; i++) {
        da[i] = 1.0;
        double t = __enzyme_fwddiff<double>((void *)lstsq, enzyme_runtime_activity, enzyme_dup, a, da,
                                            enzyme_const, b, enzyme_const, m, enzyme_const, n);
        da[i] = 0.0;
        printf("grad const_b_a%d %.17g %.17g\n", i, t, fd(a, i, a, b, m, n));
    }
    return 0;
}
