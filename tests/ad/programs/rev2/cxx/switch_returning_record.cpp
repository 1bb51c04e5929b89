// A noinline function that switches on an operation at entry and returns a record
// of six doubles (through an `sret` pointer): differentiated, it becomes a
// dispatcher calling one function per case (typeanalysis/cases.py), whose calls
// keep the case's ABI attributes. Reverse and forward mode.
// Reference: analytic.
// tol: rel=1e-12 abs=1e-14
// grads: 12
#include <cmath>
#include <cstdio>
#include <cstring>

extern "C" {
extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);
}

struct Big {
    double v[6];
};

__attribute__((noinline)) Big make(int op, const double *x) {
    Big b;
    switch (op) {
    case 0:
        for (int i = 0; i < 6; i++) b.v[i] = x[i] * x[i];
        break;
    case 1:
        for (int i = 0; i < 6; i++) b.v[i] = std::sin(x[i]);
        break;
    default:
        std::memset(&b, 0, sizeof b);
        break;
    }
    return b;
}

double f(const double *x) {
    Big a = make(0, x), c = make(1, x), z = make(2, x);
    double s = 0;
    for (int i = 0; i < 6; i++) s += a.v[i] * c.v[i] + z.v[i];
    return s;
}

int main() {
    double x[6] = {0.1, 0.2, 0.3, 0.4, 0.5, 0.6}, dx[6] = {0};
    __enzyme_autodiff((void *)f, enzyme_dup, x, dx);
    for (int i = 0; i < 6; i++) {
        double t[6] = {0};
        t[i] = 1;
        double exact = 2 * x[i] * std::sin(x[i]) + x[i] * x[i] * std::cos(x[i]);
        std::printf("grad x%d %.17g %.17g\n", i, dx[i], exact);
        std::printf("grad fwd_x%d %.17g %.17g\n", i, __enzyme_fwddiff((void *)f, enzyme_dup, x, t), exact);
    }
    return 0;
}
