// Soundness: a std::unordered_map<int, std::string> and a std::map<int,
// std::string> whose values carry an active double's bytes (a string built from
// them, assigned into the map, copied out by the copy constructor and read back as
// a double). The derivative must flow through the characters, or compilation stops
// with a located error, never a zero derivative.
// tol: rel=1e-9 abs=1e-12
// grads: 2
// flags: -fno-exceptions
#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <unordered_map>

extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);

__attribute__((noinline)) void f(const double *x, double *out) {
    std::unordered_map<int, std::string> u;
    std::map<int, std::string> m;
    u[1] = std::string((const char *)&x[0], sizeof(double));
    m[2] = std::string((const char *)x, 2 * sizeof(double));  // 16 bytes: on the heap
    std::string v(u[1]), w(m[2]);                              // copies of the values
    double a, b[2];
    std::memcpy(&a, v.data(), sizeof(double));
    std::memcpy(b, w.data(), sizeof b);
    *out = a * a * a + b[0] * b[1];
}

int main() {
    double x[2] = {0.7, -1.3}, dx[2] = {0, 0};
    double out, dout = 1.0;
    __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_dup, &out, &dout);
    std::printf("grad dx[0] %.17g %.17g\n", dx[0], 3.0 * x[0] * x[0] + x[1]);
    std::printf("grad dx[1] %.17g %.17g\n", dx[1], x[0]);
    return 0;
}
