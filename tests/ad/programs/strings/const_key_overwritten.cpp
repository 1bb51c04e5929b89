// Soundness of analysis/inactive_memory.py: a map key copied from an enzyme_const
// string (which alone would need no shadow) whose bytes are then overwritten with
// an active double's bytes, once by memcpy and once through integer shifts, before
// the key goes into a std::map and its bytes are read back as a double. The key's
// memory is then not provably inactive: the derivative must flow through the
// characters, or compilation stops with a located error, never a zero derivative
// (enzc gave 0 here before: the capacity that shares the
// string's buffer typed the copied double's bytes as an integer).
// tol: rel=1e-9 abs=1e-12
// grads: 2
// flags: -fno-exceptions
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <vector>

extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);

typedef std::vector<std::string> Keys;

__attribute__((noinline)) void f(const Keys &keys, const double *x, double *out) {
    std::map<std::string, double> m;
    std::string k(keys[0]);                      // copied from a constant string
    std::memcpy(&k[0], &x[0], sizeof(double));   // then carries x[0]'s bytes
    m[k] = 2.0;
    std::string l(keys[1]);
    std::uint64_t bits;
    std::memcpy(&bits, &x[1], sizeof(double));
    for (int j = 0; j < 8; j++) l[j] = (char)(bits >> (8 * j));  // x[1]'s bytes, one by one
    m[l] = 3.0;
    double loss = 0;
    for (const auto &kv : m) {
        double e;
        std::memcpy(&e, kv.first.data(), sizeof(double));
        loss += kv.second * e * e;
    }
    *out = loss;
}

static const Keys &keys() {
    static const Keys k = {"eight ch", "a key longer than fifteen characters"};
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
