// C++ built with exceptions (the default): calls that may throw are invokes, with
// cleanups (destructors of the local vectors) on their unwind paths; a noinline
// helper that throws, std::sort and a try/catch around an inactive call all sit in
// the differentiated code. The gradient matches central finite differences, and an
// exception thrown inside the derivative reaches the caller's handler.
// tol: rel=1e-6 abs=1e-8
// grads: 6
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);

__attribute__((noinline)) double energy(const std::vector<double> &x, double k) {
    if (k < 0) throw std::invalid_argument("negative stiffness");
    double e = 0;
    for (size_t i = 0; i + 1 < x.size(); i++) {
        double d = x[i + 1] - x[i];
        e += k * d * d * d * d;
    }
    return e;
}

int parse_or(const char *s, int fallback) {
    try {
        return std::stoi(std::string(s));
    } catch (const std::exception &) {
        return fallback;
    }
}

void total(const double *x, double *out, int n, const char *scale) {
    std::vector<double> v(x, x + n);
    std::vector<double> sorted(v);
    std::sort(sorted.begin(), sorted.end());
    double spread = sorted.back() - sorted.front();
    *out = parse_or(scale, 2) * energy(v, 1.5) + std::sin(v[0]) + spread * spread;
}

void total_throws(const double *x, double *out, int n) {
    std::vector<double> v(x, x + n);
    *out = energy(v, -1.0);
}

int main() {
    const int n = 5;
    double x[n] = {0.1, 0.5, -0.2, 0.7, 0.3}, dx[n] = {0}, out = 0, dout = 1;
    __enzyme_autodiff((void *)total, enzyme_dup, x, dx, enzyme_dup, &out, &dout, enzyme_const, n,
                      enzyme_const, "not a number");
    for (int i = 0; i < n; i++) {
        double h = 1e-6, o = x[i], fp, fm;
        x[i] = o + h;
        total(x, &fp, n, "not a number");
        x[i] = o - h;
        total(x, &fm, n, "not a number");
        x[i] = o;
        printf("grad dx[%d] %.17g %.17g\n", i, dx[i], (fp - fm) / (2 * h));
    }
    int caught = 0;
    try {
        double d2[n] = {0};
        dout = 1;
        __enzyme_autodiff((void *)total_throws, enzyme_dup, x, d2, enzyme_dup, &out, &dout, enzyme_const, n);
    } catch (const std::invalid_argument &) {
        caught = 1;
    }
    printf("grad caught %d 1\n", caught);
    return 0;
}
