// Eigen's other dense decompositions on fixed-size matrices, each in its own
// objective: JacobiSVD's singular values (2x2 and 4x4), ColPivHouseholderQR and
// FullPivLU solves, LLT and LDLT solves of A A^T. JacobiSVD scales the matrix by its
// largest absolute entry; the optimizer loads the first two entries as `<2 x i64>`
// for the absolute values (an `and` mask) and reuses those bits, bitcast, as the
// doubles it divides. That integer load carried no derivative, and the gradient
// of the entries (0,0) and (1,0) was zero, silently, at -O0 and -O2
// (rev2/memory/simd_integer_moves.c); ClangEnzyme-19 crashes on the SVD. Reverse
// and forward mode.
// Reference: central finite differences.
// tol: rel=1e-5 abs=1e-7
// grads: 32
// flags: -I/usr/include/eigen3
#include <Eigen/Dense>
#include <cmath>
#include <cstdio>
#include <cstring>

extern int enzyme_dup;
extern "C" void __enzyme_autodiff(void *, ...);
extern "C" double __enzyme_fwddiff(void *, ...);

constexpr int P = 4;

static Eigen::Matrix4d matrix_of(const double *p) {
    Eigen::Matrix4d A;
    for (int i = 0; i < 16; i++) A(i / 4, i % 4) = p[i % P] * (1.0 + 0.15 * i) + (i % 5 == 0 ? 4.0 : 0.3 * (i % 3));
    return A;
}

double svd2(const double *p) {
    Eigen::Matrix2d A;
    A << 3.8 + p[0], 0.12 * p[1], 0.05 + p[2] * p[3], 4.1 - p[3];
    return Eigen::JacobiSVD<Eigen::Matrix2d>(A).singularValues().sum();
}

double svd4(const double *p) {
    Eigen::JacobiSVD<Eigen::Matrix4d> svd(matrix_of(p), Eigen::ComputeFullU | Eigen::ComputeFullV);
    return svd.singularValues().dot(Eigen::Vector4d(1.0, 0.5, 0.25, 0.125));
}

double qr_and_lu(const double *p) {
    Eigen::Matrix4d A = matrix_of(p);
    Eigen::Vector4d b(1, 2, 3, 4);
    return A.colPivHouseholderQr().solve(b).squaredNorm() + A.fullPivLu().solve(b).sum();
}

double cholesky(const double *p) {
    Eigen::Matrix4d A = matrix_of(p);
    Eigen::Matrix4d S = A * A.transpose();
    Eigen::Vector4d b(1, -2, 3, 0.5);
    return S.llt().solve(b).squaredNorm() + S.ldlt().solve(b).sum();
}

template <double (*objective)(const double *)>
static void check(const char *name, const double *p) {
    double dp[P] = {0};
    __enzyme_autodiff((void *)objective, enzyme_dup, p, dp);
    for (int i = 0; i < P; i++) {
        double plus[P], minus[P], seed[P] = {0}, h = 1e-6;
        std::memcpy(plus, p, sizeof plus);
        std::memcpy(minus, p, sizeof minus);
        plus[i] += h;
        minus[i] -= h;
        double fd = (objective(plus) - objective(minus)) / (2 * h);
        seed[i] = 1;
        std::printf("grad %s_rev_p%d %.17g %.17g\n", name, i, dp[i], fd);
        std::printf("grad %s_fwd_p%d %.17g %.17g\n", name, i, __enzyme_fwddiff((void *)objective, enzyme_dup, p, seed), fd);
    }
}

int main() {
    double p[P];
    for (int i = 0; i < P; i++) p[i] = 0.5 + 0.3 * std::sin(1.1 * i + 0.2);
    check<svd2>("svd2", p);
    check<svd4>("svd4", p);
    check<qr_and_lu>("qr_lu", p);
    check<cholesky>("cholesky", p);
    return 0;
}
