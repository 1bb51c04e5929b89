// Soundness of analysis/inactive_memory.py across calls: keys copied from
// enzyme_const strings, then given an active double's bytes by libstdc++.so
// (`append`, outside the module), go into a std::unordered_map and are read back
// as doubles. The keys' memory is then not provably inactive: a correct
// derivative or a located error, never a zero one.
// tol: rel=1e-9 abs=1e-12
// grads: 2
// flags: -fno-exceptions
#include <cstdio>
#include <cstring>
#include <string>
#include <unordered_map>
#include <vector>

extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);

typedef std::vector<std::string> Keys;

__attribute__((noinline)) void f(const Keys &keys, const double *x, double *out) {
    std::unordered_map<std::string, double> u;
    std::string k(keys[0]);
    k.append((const char *)&x[0], sizeof(double));
    u[k] = 2.0;
    std::string l(keys[1]);
    l.append((const char *)&x[1], sizeof(double));  // the double's bytes after 8 characters
    u[l] = 3.0;
    double loss = 0;
    for (const auto &kv : u) {
        double e;
        std::memcpy(&e, kv.first.data() + (kv.first.size() - sizeof(double)), sizeof(double));
        loss += kv.second * e * e;
    }
    *out = loss;
}

static const Keys &keys() {
    static const Keys k = {"eight ch", "12345678"};
    return k;
}

int main() {
    double x[2] = {0.7, -1.3}, dx[2] = {0, 0};
    double out, dout = 1.0;
    __enzyme_autodiff((void *)f, enzyme_const, &keys(), enzyme_dup, x, dx, enzyme_dup, &out, &dout);
    std::printf("grad dx[0] %.17g %.17g\n", dx[0], 4.0 * x[0]);  // d/dx0 of 2 x0^2
    std::printf("grad dx[1] %.17g %.17g\n", dx[1], 6.0 * x[1]);  // d/dx1 of 3 x1^2
    return 0;
}
