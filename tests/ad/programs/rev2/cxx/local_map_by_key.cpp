// Maps local to the differentiated function, filled by key: `prm["alpha"] = x[0]`
// stores an active value through the reference `operator[]` returns, from a call
// that allocates the node or finds it in the map. The result's shadow lives in the
// shadow of what the call reaches (the map), so that memory gets a shadow too; the
// key string holds no derivative and gets none. A std::unordered_map<std::string,
// double> of parameters, a std::map<int, double> histogram accumulated with +=,
// lookups with at() and find(), reverse and forward. It was "an active value is
// written to memory the AD cannot shadow"; ClangEnzyme-19 differentiates it.
// Reference: central finite differences.
// tol: rel=1e-6 abs=1e-8
// grads: 18
#include <cmath>
#include <cstdio>
#include <map>
#include <string>
#include <unordered_map>

extern "C" {
extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);
}

double f(const double *x, int n) {
    std::unordered_map<std::string, double> prm;
    prm["alpha"] = x[0];
    prm["beta"] = x[1];
    prm["gamma"] = x[2];
    prm["alpha"] *= x[1];  // found again, not allocated
    std::map<int, double> bins;
    for (int i = 3; i < n; i++) bins[(i * 7) % 4] += x[i] * prm["alpha"];
    double s = 0;
    for (auto &kv : bins) s += kv.second * kv.second * (kv.first + 1);
    auto it = bins.find(2);
    if (it != bins.end()) s += std::sin(it->second);
    return s + std::exp(prm.at("beta")) * prm["gamma"];
}

int main() {
    const int n = 9;
    double x[n], d[n] = {0};
    for (int i = 0; i < n; i++) x[i] = 0.2 * i - 0.5;
    __enzyme_autodiff((void *)f, enzyme_dup, x, d, enzyme_const, n);
    const double h = 1e-6;
    for (int i = 0; i < n; i++) {
        double xp[n], xm[n], t[n] = {0};
        for (int j = 0; j < n; j++) xp[j] = xm[j] = x[j];
        xp[i] += h;
        xm[i] -= h;
        t[i] = 1;
        double fd = (f(xp, n) - f(xm, n)) / (2 * h);
        std::printf("grad x%d %.17g %.17g\n", i, d[i], fd);
        std::printf("grad fwd_x%d %.17g %.17g\n", i, __enzyme_fwddiff((void *)f, enzyme_dup, x, t, enzyme_const, n), fd);
    }
    return 0;
}
