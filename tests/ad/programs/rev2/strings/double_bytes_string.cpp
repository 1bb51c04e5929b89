// Soundness: a std::string carrying an active double's bytes. The bytes go into
// the string (8 of them in its own buffer; 24 into a block from libstdc++'s
// _M_create) and are copied back out as doubles: the derivative must flow
// through the string's characters, never be dropped as "just characters".
// Checked against central differences.
// tol: rel=1e-6 abs=1e-9
// grads: 3
// flags: -fno-exceptions
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>

extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);

__attribute__((noinline)) void f(const double *x, int n, double *out) {
    std::string s((const char *)&x[0], sizeof(double));        // short: in the string
    std::string t((const char *)x, n * sizeof(double));        // long: on the heap
    double a, b[3];
    std::memcpy(&a, s.data(), sizeof(double));
    std::memcpy(b, t.data(), n * sizeof(double));
    *out = a * a + b[0] * b[1] + std::sin(b[2]) * (double)t.size();
}

static double primal(const double *x, int n) {
    double out;
    f(x, n, &out);
    return out;
}

int main() {
    const int n = 3;
    double x[n] = {0.7, -1.3, 0.4}, dx[n] = {0, 0, 0};
    double out, dout = 1.0;
    __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_const, n, enzyme_dup, &out, &dout);
    for (int i = 0; i < n; i++) {
        double h = 1e-6 * (std::fabs(x[i]) + 1), xp[n], xm[n];
        for (int j = 0; j < n; j++) xp[j] = xm[j] = x[j];
        xp[i] += h;
        xm[i] -= h;
        std::printf("grad dx[%d] %.17g %.17g\n", i, dx[i], (primal(xp, n) - primal(xm, n)) / (2 * h));
    }
    return 0;
}
