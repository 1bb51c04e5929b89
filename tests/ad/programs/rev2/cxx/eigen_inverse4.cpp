// Eigen's fixed-size inverses and determinants: the 4x4 inverse is SIMD code
// (InverseSize4.h) that negates lanes by xor-ing their bits with a sign mask
// after a shuffle. The sign flips were lost: every entry of the gradient was wrong,
// silently, at -O0 and -O2, in both modes (`synth/float_bit_ops.py` turns them
// into fneg; `memory/intfloat.py` now follows float bits through shuffles, so
// what it cannot turn into float operations is a located error). Also the 3x3
// and 2x2 inverses (cofactors) and a 4x4 determinant. Reverse and forward mode.
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
    Eigen::Matrix4d A;
    for (int i = 0; i < 16; i++) A(i / 4, i % 4) = p[i % P] * (1.0 + 0.1 * i) + (i % 5 == 0 ? 3.0 : 0.0);
    Eigen::Matrix3d B = A.topLeftCorner<3, 3>() + A.bottomRightCorner<3, 3>().transpose();
    Eigen::Matrix2d C = A.block<2, 2>(1, 1);
    Eigen::Vector4d w(1.0, -2.0, 0.5, 3.0);
    return w.dot(A.inverse() * w) + B.inverse().sum() + C.inverse().trace() + 0.01 * A.determinant();
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
