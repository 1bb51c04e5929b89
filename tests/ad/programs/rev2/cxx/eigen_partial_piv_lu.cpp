// Eigen's PartialPivLU on fixed-size matrices: a 6x6 solve and a 5x5 determinant
// (Eigen takes determinants above 4x4 from the LU). The permutation's int indices
// sit beside the matrix in one object and are swapped at a run-time index, so type
// analysis finds doubles and ints alike where the swap may reach; the swap's own
// `int` tag on a local object or an array member decides (`memory/intfloat.py`).
// It was "cannot tell whether the i32 stored here holds floating-point data"
// (ClangEnzyme-19 differentiates the solve, not the determinant). Reverse and
// forward mode.
// Reference: central finite differences.
// tol: rel=1e-6 abs=1e-8
// grads: 24
// flags: -I/usr/include/eigen3
#include <Eigen/Dense>
#include <cmath>
#include <cstdio>
#include <cstring>

extern int enzyme_dup;
extern "C" void __enzyme_autodiff(void *, ...);
extern "C" double __enzyme_fwddiff(void *, ...);

constexpr int P = 12;

double objective(const double *p) {
    Eigen::Matrix<double, 6, 6> A;
    for (int i = 0; i < 36; i++) A(i / 6, i % 6) = p[i % P] * (1.0 + 0.1 * i) + (i % 7 == 0 ? 3.0 : 0.0);
    Eigen::Matrix<double, 6, 1> b = Eigen::Matrix<double, 6, 1>::LinSpaced(1.0, 2.0);
    Eigen::Matrix<double, 5, 5> B;
    for (int i = 0; i < 25; i++) B(i / 5, i % 5) = p[(i + 5) % P] * (1.0 - 0.05 * i) + (i % 6 == 0 ? 2.0 : 0.0);
    return A.partialPivLu().solve(b).squaredNorm() + 0.1 * B.determinant();
}

int main() {
    double p[P], dp[P] = {0};
    for (int i = 0; i < P; i++) p[i] = 0.5 + 0.3 * std::sin(1.1 * i + 0.2);
    __enzyme_autodiff((void *)objective, enzyme_dup, p, dp);
    for (int i = 0; i < P; i++) {
        double plus[P], minus[P], seed[P] = {0}, h = 1e-6;
        std::memcpy(plus, p, sizeof p);
        std::memcpy(minus, p, sizeof p);
        plus[i] += h;
        minus[i] -= h;
        double fd = (objective(plus) - objective(minus)) / (2 * h);
        seed[i] = 1;
        std::printf("grad rev_p%d %.17g %.17g\n", i, dp[i], fd);
        std::printf("grad fwd_p%d %.17g %.17g\n", i, __enzyme_fwddiff((void *)objective, enzyme_dup, p, seed), fd);
    }
    return 0;
}
