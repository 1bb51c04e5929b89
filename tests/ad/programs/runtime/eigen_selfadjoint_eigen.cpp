// Runtime activity with Eigen's SelfAdjointEigenSolver on a symmetric 4x4 matrix
// (the symmetric part of the input): a weighted sum of the eigenvalues (distinct)
// and, sign-invariant, the squared projection of the top eigenvector on a fixed
// vector. The solver's tridiagonalization applies Householder sequences that copy
// whole `Block` objects (typeanalysis/padding.py). Reverse mode against central
// differences.
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
    __enzyme_autodiff<void>((void *)spectrum, enzyme_runtime_activity, enzyme_dup, a, da, enzyme_const, n);
    for (int i = 0; i < n * n; i++) {
        double h = 1e-6, s = a[i];
        a[i] = s + h;
        double up = spectrum(a, n);
        a[i] = s - h;
        double down = spectrum(a, n);
        a[i] = s;
        printf("grad a%d %.17g %.17g\n", i, da[i], (up - down) / (2 * h));
    }
    return 0;
}
