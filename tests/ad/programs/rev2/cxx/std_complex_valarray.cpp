// std::complex's transcendental functions (libstdc++ calls libm's cpow, csin, cexp,
// csqrt, clog, ctanh, catan through __builtin_c*), std::norm/abs/arg, a
// std::valarray with elementwise arithmetic and std::sin, std::inner_product,
// std::accumulate with a lambda, std::transform over a std::array, max_element.
// cpow and csin were "cannot differentiate call to external function"
// (ClangEnzyme-19: "No augmented forward pass found for clog"). Reverse mode.
// Reference: central finite differences.
// tol: rel=1e-6 abs=1e-8
// grads: 4
#include <algorithm>
#include <array>
#include <cmath>
#include <complex>
#include <cstdio>
#include <numeric>
#include <valarray>
#include <vector>

extern double __enzyme_autodiff(void *, ...);
extern int enzyme_dup, enzyme_const;

double f(const double *x, int n) {
    std::vector<double> v(x, x + n);
    std::valarray<double> va(x, n);
    va = va * va + std::sin(va);
    std::complex<double> z(x[0], x[1]);
    auto w = std::pow(z, 1.7) + std::sin(z) * std::exp(z) + std::sqrt(z) + std::log(z) + std::tanh(z) +
             std::atan(z);
    double ip = std::inner_product(v.begin(), v.end(), v.begin(), 0.0);
    double acc = std::accumulate(v.begin(), v.end(), 1.0, [](double a, double b) { return a * (1 + b * b); });
    std::array<double, 3> arr{x[0], x[1], x[2]};
    std::transform(arr.begin(), arr.end(), arr.begin(), [](double t) { return std::exp(-t * t); });
    double mx = *std::max_element(v.begin(), v.end());
    return va.sum() + std::norm(w) + std::abs(w) + std::arg(w) + ip * acc + arr[0] * arr[2] + mx;
}

int main() {
    const int n = 4;
    double x[n] = {0.7, 0.4, -0.3, 1.1}, dx[n] = {0};
    __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_const, n);
    for (int k = 0; k < n; k++) {
        double xp[n], xm[n], h = 1e-6;
        std::copy(x, x + n, xp);
        std::copy(x, x + n, xm);
        xp[k] += h;
        xm[k] -= h;
        std::printf("grad x%d %.17g %.17g\n", k, dx[k], (f(xp, n) - f(xm, n)) / (2 * h));
    }
}
