// Forward mode through Eigen's SelfAdjointEigenSolver with runtime activity: the
// function of eigen_selfadjoint_eigen.cpp (eigenvalues and a sign-invariant
// eigenvector term of the symmetric part of a 4x4 matrix), one tangent per matrix
// entry, each against central differences.
// flags: -I/usr/include/eigen3
// tol: rel=1e-6 abs=1e-8
// grads: 16
#include <cstdio>
#include <Eigen/Dense>
#include <enzyme/enzyme.h>

using Mat = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic>;
using Vec = Eigen::Matrix<double, Eigen::Dynamic, 1>;

double spectrum(const double *a, int n) {
    Eigen::Map<const Mat> A(a, n, n);
    Mat S = 0.5 * (A + A.transpose());
    Eigen::SelfAdjointEigenSolver<Mat> es(S);
    const Vec &ev = es.eigenvalues();
    double s = 0;
    for (int i = 0; i < n; i++) s += (i + 1) * ev[i];
    Vec top = es.eigenvectors().col(n - 1);
    double p = 0;
    for (int i = 0; i < n; i++) p += (1.0 + 0.5 * i) * top[i];
    return s + p * p;
}

int main() {
    const int n = 4;
    double a[n * n], da[n * n] = {0};
    const double base[n] = {3.0, 1.0, -0.5, -2.5};  // well separated eigenvalues
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) a[i + n * j] = (i == j ? base[i] : 0.2 * ((i * 3 + j * 5) % 7) - 0.5);
    for (int i = 0; i < n * n; i++) {
        da[i] = 1.0;
        double t = __enzyme_fwddiff<double>((void *)spectrum, enzyme_runtime_activity, enzyme_dup, a, da,
                                            enzyme_const, n);
        da[i] = 0.0;
        double h = 1e-6, s = a[i];
        a[i] = s + h;
        double up = spectrum(a, n);
        a[i] = s - h;
        double down = spectrum(a, n);
        a[i] = s;
        printf("grad a%d %.17g %.17g\n", i, t, (up - down) / (2 * h));
    }
    return 0;
}
