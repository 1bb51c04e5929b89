// std::map<std::string, double> in the differentiated function: keys built from
// literals (moved into the node), keys copied from lvalue strings (the copy
// constructor writing the node's characters; short keys in the string's own
// buffer, keys longer than 15 characters on the heap), a loop over variable keys
// (`for (auto &k : keys) loss += m[k] * x[i]`), and a range-for summing the
// values. The map is an enzyme_dup argument; checked against central differences.
// tol: rel=1e-6 abs=1e-9
// grads: 8
// flags: -fno-exceptions
#include <cmath>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

typedef std::map<std::string, double> Dict;
typedef std::vector<std::string> Keys;

extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);

void f(Dict &m, const Keys &keys, const double *x, int n, double *out) {
    for (int i = 0; i < n; i++) {
        std::string k(keys[i % keys.size()]);  // a key copied from an lvalue string
        m[k] += x[i] * x[i];
    }
    m["prod"] = m["x"] * m["w"];  // literal keys, one inserted, two found
    double loss = 0;
    int i = 0;
    for (auto &k : keys) loss += m[k] * x[i++];  // variable keys
    for (const auto &kv : m) loss += std::sin(kv.second);  // range-for over the values
    *out = loss;
}

static const Keys &keys() {
    static const Keys k = {"w", "a key of more than fifteen characters", "mid", "x",
                           "another rather long key, on the heap"};
    return k;
}

static double primal(const double *x, int n, double x0) {
    Dict m;
    m["x"] = x0;
    double out;
    f(m, keys(), x, n, &out);
    return out;
}

int main() {
    const int n = 7;
    double x[n], dx[n] = {0}, x0 = 0.7;
    for (int i = 0; i < n; i++) x[i] = 0.3 * i - 0.4;
    Dict m, dm;
    m["x"] = x0;
    dm["x"] = 0.0;
    double out, dout = 1.0;
    __enzyme_autodiff((void *)f, enzyme_dup, &m, &dm, enzyme_const, &keys(), enzyme_dup, x, dx,
                      enzyme_const, n, enzyme_dup, &out, &dout);
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
