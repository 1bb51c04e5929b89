// Soundness of analysis/inactive_memory.py across calls: a key copied from an
// enzyme_const string, then given an active double's bytes by a helper that is not
// inlined (a memcpy into the key), goes into a std::unordered_map and is read back
// as a double. The key's memory is then not provably inactive: a correct
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

__attribute__((noinline)) void stamp(std::string &k, const double *v) {
    std::memcpy(&k[0], v, sizeof(double));
}

__attribute__((noinline)) void f(const Keys &keys, const double *x, double *out) {
    std::unordered_map<std::string, double> u;
    std::string k(keys[0]);
    stamp(k, &x[0]);
    u[k] = 2.0;
    std::string l(keys[1]);
    stamp(l, &x[1]);
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
