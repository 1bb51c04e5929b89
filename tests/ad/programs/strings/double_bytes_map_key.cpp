// Soundness: std::map / std::unordered_map keys whose bytes come from active
// doubles. A key built from a double's bytes (8 characters, in the string's own
// buffer; 16 characters, on the heap) is copied from an lvalue into the map's node
// (`m[k]`, the copy constructor), another key is a copy of such a string
// (`std::string k2(k)`), and the keys' bytes are read back as doubles after
// iterating the maps. The derivative must flow through the characters, or
// compilation stops with a located error, never a zero derivative. Checked against
// central differences.
// tol: rel=1e-6 abs=1e-9
// grads: 3
// flags: -fno-exceptions
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <unordered_map>

extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);

static double first_double(const std::string &s) {
    double e;
    std::memcpy(&e, s.data(), sizeof(double));
    return e;
}

__attribute__((noinline)) void f(const double *x, double *out) {
    std::map<std::string, double> m;
    std::unordered_map<std::string, double> u;
    std::string k((const char *)&x[0], sizeof(double));      // short key from x[0]
    m[k] = 1.0;                                               // copied from an lvalue
    std::string k2(k);                                        // a copy of an active-derived string
    u[k2] = 2.0;
    std::string l((const char *)&x[1], 2 * sizeof(double));  // long key from x[1], x[2]
    m[l] = 3.0;
    double loss = 0;
    for (const auto &kv : m) {
        double e = first_double(kv.first), g;
        std::memcpy(&g, kv.first.data() + (kv.first.size() - sizeof(double)), sizeof(double));
        loss += kv.second * e * g;
    }
    for (const auto &kv : u) loss += kv.second * std::sin(first_double(kv.first));
    *out = loss;
}

static double primal(const double *x) {
    double out;
    f(x, &out);
    return out;
}

int main() {
    const int n = 3;
    double x[n] = {0.7, -1.3, 0.4}, dx[n] = {0, 0, 0};
    double out, dout = 1.0;
    __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_dup, &out, &dout);
    for (int i = 0; i < n; i++) {
        double h = 1e-6 * (std::fabs(x[i]) + 1), xp[n], xm[n];
        for (int j = 0; j < n; j++) xp[j] = xm[j] = x[j];
        xp[i] += h;
        xm[i] -= h;
        std::printf("grad dx[%d] %.17g %.17g\n", i, dx[i], (primal(xp) - primal(xm)) / (2 * h));
    }
    return 0;
}
