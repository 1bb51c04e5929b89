// std::map<std::string, double> (a red-black tree, rebalanced in libstdc++.so) in the
// differentiated function, keyed by short string literals (Enzyme's ReverseMode/map.cpp
// usage): the map is an enzyme_dup argument, values are inserted, looked up,
// accumulated into, and the map is iterated; checked against central differences.
// tol: rel=1e-6 abs=1e-9
// grads: 4
// flags: -fno-exceptions
#include <cmath>
#include <cstdio>
#include <string>
#include <map>

typedef std::map<std::string, double> Dict;

extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);

void f(Dict &m, const double *x, int n, double *out) {
    for (int i = 0; i < n; i++) {
        if (i % 2 == 0)
            m["even"] += x[i] * x[i];  // accumulate into an existing or new value
        else
            m["odd"] += std::sin(x[i]);
    }
    m["prod"] = m["even"] * m["x"];  // lookup of a value the caller inserted
    double s = 0;
    for (const auto &kv : m) s += kv.second * (double)kv.first.size();
    *out = s;
}

static double primal(const double *x, int n, double x0) {
    Dict m;
    m["x"] = x0;
    double out;
    f(m, x, n, &out);
    return out;
}

int main() {
    const int n = 3;
    double x[n], dx[n] = {0}, x0 = 1.3;
    for (int i = 0; i < n; i++) x[i] = 0.3 * i - 0.4;
    Dict m, dm;
    m["x"] = x0;
    dm["x"] = 0.0;
    double out, dout = 1.0;
    __enzyme_autodiff((void *)f, enzyme_dup, &m, &dm, enzyme_dup, x, dx, enzyme_const, n,
                      enzyme_dup, &out, &dout);
    for (int i = 0; i < n; i++) {
        double h = 1e-6 * (std::fabs(x[i]) + 1), xp[n], xm[n];
        for (int j = 0; j < n; j++) xp[j] = xm[j] = x[j];
        xp[i] += h;
        xm[i] -= h;
        std::printf("grad dx[%d] %.17g %.17g\n", i, dx[i], (primal(xp, n, x0) - primal(xm, n, x0)) / (2 * h));
    }
    double h = 1e-6 * (std::fabs(x0) + 1);
    std::printf("grad dm[x] %.17g %.17g\n", dm["x"], (primal(x, n, x0 + h) - primal(x, n, x0 - h)) / (2 * h));
    return 0;
}
