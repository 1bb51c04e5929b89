// Diagnostic: a `Map<const VectorXd>` over data passed enzyme_const, used both in
// an LLT solve and, reloaded from the Map object, in a dot product. The Map object
// gets a shadow (the solve's derivative reads it), but the const data has none to
// store in it: the dot product's derivative accumulated through the null shadow
// slot (a segmentation fault at odd sizes from 9 on). The build stops at the Map
// instead. (ClangEnzyme-19 rejects the program too; enzyme_dup with a zeroed
// shadow buffer, or enzyme_runtime_activity, differentiates it.)
#include <Eigen/Dense>
#include <cmath>
#include <cstdio>

extern int enzyme_dup, enzyme_const;
extern "C" void __enzyme_autodiff(void *, ...);

constexpr int N = 9;

double objective(const double *theta, const double *ys) {
    Eigen::Matrix<double, N, N> K;
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) {
            double d = 0.55 * (i - j);
            K(i, j) = theta[1] * std::exp(-0.5 * d * d / (theta[0] * theta[0])) + (i == j ? theta[2] : 0.0);
        }
    Eigen::Map<const Eigen::VectorXd> y(ys, N); /* DIAG-LINE */
    Eigen::Matrix<double, N, 1> alpha = K.llt().solve(y);
    return y.dot(alpha);
}

int main() {
    double theta[3] = {0.9, 1.3, 0.1}, dtheta[3] = {0}, ys[N];
    for (int i = 0; i < N; i++) ys[i] = std::sin(0.55 * i);
    __enzyme_autodiff((void *)objective, enzyme_dup, theta, dtheta, enzyme_const, ys);
    std::printf("%g %g %g\n", dtheta[0], dtheta[1], dtheta[2]);
    return 0;
}
