// std::any holding a record of two active doubles (on the heap: std::any keeps
// only pointer-sized trivially copyable values in place) and an active double (in
// place), copied and read back with any_cast. std::any's manager switches on its
// operation, with the stored pointer loaded before the switch; its cases store a
// type_info pointer, the object's address, or copy the record into a new block.
// Type analysis joined the cases: the copy's bytes had conflicting types, a
// compile-time error. Each case is now typed on its own (typeanalysis/cases.py).
// Reverse and forward mode.
// Reference: central finite differences.
// tol: rel=1e-6 abs=1e-8
// grads: 10
#include <any>
#include <cmath>
#include <cstdio>

extern "C" {
extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);
}

struct Params {
    double a, b;
};

double f(const double *x, int n) {
    std::any p = Params{x[0], x[1] * x[1]};
    std::any q = p;
    const Params &r = std::any_cast<const Params &>(q);
    double s = 0;
    for (int i = 2; i < n; i++) s += r.a * std::sin(x[i]) + r.b * x[i];
    std::any d = x[0] * 3.0;
    return s + std::any_cast<double>(d);
}

int main() {
    const int n = 5;
    double x[n] = {0.5, -0.3, 1.2, 0.7, -1.1}, dx[n] = {0}, h = 1e-6;
    __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_const, n);
    for (int i = 0; i < n; i++) {
        double xp[n], xm[n], t[n] = {0};
        for (int j = 0; j < n; j++) xp[j] = xm[j] = x[j];
        xp[i] += h;
        xm[i] -= h;
        t[i] = 1;
        double fd = (f(xp, n) - f(xm, n)) / (2 * h);
        std::printf("grad x%d %.17g %.17g\n", i, dx[i], fd);
        std::printf("grad fwd_x%d %.17g %.17g\n", i, __enzyme_fwddiff((void *)f, enzyme_dup, x, t, enzyme_const, n), fd);
    }
    return 0;
}
