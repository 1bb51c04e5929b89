// Forward mode in C++ built with exceptions: std::vector, a class template, a
// lambda with std::accumulate, std::sort and a noinline method; each column of the
// Jacobian of a small map R^3 -> R^2 by one forward sweep, against analytic values.
// tol: rel=1e-12 abs=1e-14
// grads: 6
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <vector>

extern "C" void __enzyme_fwddiff(void *, ...);
extern "C" int enzyme_dup, enzyme_const, enzyme_dupnoneed;

template <typename T>
struct Poly {
    std::vector<T> c;
    __attribute__((noinline)) T eval(T x) const {
        T r = 0;
        for (auto it = c.rbegin(); it != c.rend(); ++it) r = r * x + *it;
        return r;
    }
};

void model(const double *in, double *out) {
    std::vector<double> v(in, in + 3);
    std::sort(v.begin(), v.end());
    Poly<double> p{{1.0, v[0], v[1]}};
    out[0] = p.eval(v[2]);
    out[1] = std::accumulate(v.begin(), v.end(), 0.0, [](double a, double b) { return a + std::sin(b); });
}

int main() {
    double in[3] = {0.9, -0.3, 0.4};  // sorted: -0.3, 0.4, 0.9
    for (int k = 0; k < 3; k++) {
        double din[3] = {0, 0, 0}, out[2], dout[2] = {0, 0};
        din[k] = 1;
        __enzyme_fwddiff((void *)model, enzyme_dup, in, din, enzyme_dupnoneed, out, dout);
        // out0 = 1 + a*z + b*z^2 with a = -0.3 (in[1]), b = 0.4 (in[2]), z = 0.9 (in[0])
        double a = -0.3, b = 0.4, z = 0.9;
        double e0[3] = {a + 2 * b * z, z, z * z};  // d/d in[0], in[1], in[2]
        std::printf("grad dout0/din%d %.17g %.17g\n", k, dout[0], e0[k]);
        std::printf("grad dout1/din%d %.17g %.17g\n", k, dout[1], std::cos(in[k]));
    }
    return 0;
}
