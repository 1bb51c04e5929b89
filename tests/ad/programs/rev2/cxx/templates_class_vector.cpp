// C++ through enzc++: a class template with methods over std::vector<double>, a
// function template, built with -fno-exceptions.
// tol: rel=1e-12 abs=1e-14
// grads: 6
// flags: -fno-exceptions -std=c++17
#include <cmath>
#include <cstdio>
#include <vector>

extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);

template <typename T>
class Poly {
  public:
    explicit Poly(const std::vector<T> &c) : coeffs_(c) {}
    T eval(T x) const {
        T r = 0;
        for (auto it = coeffs_.rbegin(); it != coeffs_.rend(); ++it) r = r * x + *it;
        return r;
    }
    std::size_t degree() const { return coeffs_.size() - 1; }

  private:
    std::vector<T> coeffs_;
};

template <typename T>
T sum_of(const std::vector<T> &v) {
    T s = 0;
    for (const T &e : v) s += e;
    return s;
}

double objective(const double *c, const double *xs, int n) {
    Poly<double> p(std::vector<double>(c, c + 3));
    std::vector<double> vals;
    vals.reserve(n);
    for (int i = 0; i < n; i++) vals.push_back(std::sin(p.eval(xs[i])));
    return sum_of(vals) * static_cast<double>(p.degree());
}

int main() {
    double c[3] = {0.5, -1.0, 0.25}, dc[3] = {0, 0, 0};
    const double xs[2] = {0.7, -1.3};
    __enzyme_autodiff((void *)objective, enzyme_dup, c, dc, enzyme_const, xs, enzyme_const, 2);
    for (int k = 0; k < 3; k++) {
        double r = 0;
        for (int i = 0; i < 2; i++) {
            double x = xs[i], p = c[0] + c[1] * x + c[2] * x * x;
            r += 2.0 * std::cos(p) * std::pow(x, k);
        }
        std::printf("grad dc[%d] %.17g %.17g\n", k, dc[k], r);
    }
    double c2[3] = {1.0, 0.0, -0.5}, dc2[3] = {0, 0, 0};
    __enzyme_autodiff((void *)objective, enzyme_dup, c2, dc2, enzyme_const, xs, enzyme_const, 1);
    double x = xs[0], p = c2[0] + c2[1] * x + c2[2] * x * x;
    for (int k = 0; k < 3; k++)
        std::printf("grad n1.dc[%d] %.17g %.17g\n", k, dc2[k], 2.0 * std::cos(p) * std::pow(x, k));
    return 0;
}
