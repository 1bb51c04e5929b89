// Helper for eigen_avx2_fma.cpp and eigen_avx512.cpp (the same body built with
// different -m flags): a Gaussian-process negative log likelihood over dynamic matrices
// (Eigen's own aligned heap blocks, its LLT, its vectorized matrix-vector products
// and reductions) plus a fixed-size least-squares term (products whose multiply-add
// is Eigen's FMA inline asm). Reverse and forward mode against central differences.
#include <Eigen/Dense>
#include <cmath>
#include <cstdio>
#include <cstring>

extern int enzyme_dup, enzyme_const;
extern "C" void __enzyme_autodiff(void *, ...);
extern "C" double __enzyme_fwddiff(void *, ...);

constexpr int kPoints = 9;

double objective(const double *theta, const double *xs, const double *ys) {
    const double ell = theta[0], sf2 = theta[1], sn2 = theta[2];
    Eigen::MatrixXd K(kPoints, kPoints);
    for (int i = 0; i < kPoints; i++)
        for (int j = 0; j < kPoints; j++) {
            double d = xs[i] - xs[j];
            K(i, j) = sf2 * std::exp(-0.5 * d * d / (ell * ell)) + (i == j ? sn2 : 0.0);
        }
    Eigen::Map<const Eigen::VectorXd> y(ys, kPoints);
    Eigen::LLT<Eigen::MatrixXd> llt(K);
    Eigen::VectorXd alpha = llt.solve(y);
    Eigen::VectorXd Ka = K * alpha;  // a matrix-vector product: K alpha = y
    double logdet = 2 * llt.matrixL().toDenseMatrix().diagonal().array().log().sum();

    Eigen::Matrix<double, 8, 4> A;
    for (int i = 0; i < 8; i++)
        for (int j = 0; j < 4; j++) A(i, j) = theta[3 + (i * 4 + j) % 5] * (1.0 + 0.1 * i - 0.05 * j);
    Eigen::Matrix<double, 4, 1> w(0.5, -1.0, 2.0, 0.25);
    Eigen::Matrix<double, 8, 1> b = Eigen::Matrix<double, 8, 1>::LinSpaced(-1.0, 1.0);
    Eigen::Matrix4d G = A.transpose() * A;
    double fit = (A * w - b).squaredNorm() + std::log(G.determinant());
    return 0.5 * y.dot(alpha) + 0.5 * logdet + 1e-3 * Ka.squaredNorm() + fit;
}

double objective_tangent(const double *theta, const double *dtheta, const double *xs, const double *ys) {
    return __enzyme_fwddiff((void *)objective, enzyme_dup, theta, dtheta, enzyme_const, xs, enzyme_const, ys);
}

int main() {
    constexpr int P = 8;
    double theta[P] = {0.9, 1.3, 0.1, 0.7, -0.4, 1.1, 0.3, -0.8}, dtheta[P] = {0};
    double xs[kPoints], ys[kPoints];
    for (int i = 0; i < kPoints; i++) {
        xs[i] = 0.55 * i;
        ys[i] = std::sin(xs[i]) + 0.1 * i;
    }
    __enzyme_autodiff((void *)objective, enzyme_dup, theta, dtheta, enzyme_const, xs, enzyme_const, ys);
    for (int i = 0; i < P; i++) {
        double plus[P], minus[P], seed[P] = {0}, h = 1e-6;
        std::memcpy(plus, theta, sizeof theta);
        std::memcpy(minus, theta, sizeof theta);
        plus[i] += h;
        minus[i] -= h;
        double fd = (objective(plus, xs, ys) - objective(minus, xs, ys)) / (2 * h);
        seed[i] = 1;
        std::printf("grad rev_theta%d %.17g %.17g\n", i, dtheta[i], fd);
        std::printf("grad fwd_theta%d %.17g %.17g\n", i, objective_tangent(theta, seed, xs, ys), fd);
    }
    return 0;
}
