// std::map<int, double> in the differentiated function: values accumulated under
// computed integer keys (found or inserted), then the map is iterated with a
// range-for summing a function of its values. The map is an enzyme_dup argument;
// checked against central differences.
// tol: rel=1e-6 abs=1e-9
// grads: 7
// flags: -fno-exceptions
#include <cmath>
#include <cstdio>
#include <map>

typedef std::map<int, double> Dict;

extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);

void f(Dict &m, const double *x, int n, double *out) {
    for (int i = 0; i < n; i++) m[(i * 7) % 5] += x[i] * x[i];  // keys 0, 2, 4, 1, 3, 0, ...
    m[-1] = m[0] * m[42];  // 42 is the caller's key
    double s = 0;
    for (const auto &kv : m) s += std::cos(kv.second) * (kv.first + 2);  // range-for
    *out = s;
}

static double primal(const double *x, int n, double x0) {
    Dict m;
    m[42] = x0;
    double out;
    f(m, x, n, &out);
    return out;
}

int main() {
    const int n = 6;
    double x[n], dx[n] = {0}, x0 = 1.3;
    for (int i = 0; i < n; i++) x[i] = 0.3 * i - 0.4;
    Dict m, dm;
    m[42] = x0;
    dm[42] = 0.0;
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
    std::printf("grad dm[42] %.17g %.17g\n", dm[42], (primal(x, n, x0 + h) - primal(x, n, x0 - h)) / (2 * h));
    return 0;
}
