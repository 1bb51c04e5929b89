// Eigen's Geometry module built for AVX2 with FMA: a normalized quaternion, an
// angle-axis rotation, rotation matrices applied to a point, slerp, Euler angles,
// a cross product's absolute values, an angular distance. The quaternion product
// uses `llvm.x86.sse3.addsub.pd`, and the optimizer takes half of a `<4 x double>`
// as `bitcast` to `<2 x i128>`, an `extractelement`, a `bitcast` back: "cannot
// differentiate call to external function 'llvm.x86.sse3.addsub.pd'" and "the bits
// of an active <4 x double> are reinterpreted as <2 x i128>" before session 29
// (`synth/x86_intrinsics.py`, `synth/float_bit_ops.py`). Without -mavx2 it
// differentiated. Reverse and forward mode.
// Reference: central finite differences.
// tol: rel=1e-6 abs=1e-8
// grads: 16
// flags: -I/usr/include/eigen3 -mavx2 -mfma
// cpu: avx avx2 fma
#include <Eigen/Dense>
#include <Eigen/Geometry>
#include <cstdio>
#include <cstring>

extern int enzyme_dup;
extern "C" void __enzyme_autodiff(void *, ...);
extern "C" double __enzyme_fwddiff(void *, ...);

constexpr int P = 8;

double pose_objective(const double *x) {
    Eigen::Quaterniond q(x[0], x[1], x[2], x[3]);
    q.normalize();
    Eigen::Vector3d p(x[4], x[5], x[6]);
    Eigen::AngleAxisd aa(x[7], Eigen::Vector3d(x[1], x[2], 1.0).normalized());
    Eigen::Matrix3d R = q.toRotationMatrix() * aa.toRotationMatrix();
    Eigen::Vector3d r = R * p + q * p;
    Eigen::Quaterniond q2 = q.slerp(0.3, Eigen::Quaterniond(aa));
    Eigen::Vector3d e = R.eulerAngles(2, 1, 0);
    Eigen::Vector3d c = r.cross(p).cwiseAbs();
    return r.squaredNorm() + q2.w() * q2.x() + e.sum() + c.sum() + q.angularDistance(q2);
}

int main() {
    double x[P] = {0.9, 0.1, -0.2, 0.3, 1.0, -0.5, 0.25, 0.7}, dx[P] = {0};
    __enzyme_autodiff((void *)pose_objective, enzyme_dup, x, dx);
    for (int i = 0; i < P; i++) {
        double plus[P], minus[P], seed[P] = {0}, h = 1e-6;
        std::memcpy(plus, x, sizeof x);
        std::memcpy(minus, x, sizeof x);
        plus[i] += h;
        minus[i] -= h;
        seed[i] = 1;
        double fd = (pose_objective(plus) - pose_objective(minus)) / (2 * h);
        std::printf("grad rev_x%d %.17g %.17g\n", i, dx[i], fd);
        std::printf("grad fwd_x%d %.17g %.17g\n", i, __enzyme_fwddiff((void *)pose_objective, enzyme_dup, x, seed), fd);
    }
    return 0;
}
