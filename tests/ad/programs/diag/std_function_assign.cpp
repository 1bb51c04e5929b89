// Diagnostic: copy assignment of std::function in a helper called with a lambda of
// 16 bytes (kept inside the std::function: the storage holds two doubles) and one
// of 24 bytes (on the heap: the storage holds a pointer). The assignment swaps the
// storage (`_Any_data`, a union copied as untyped bytes) between objects that
// indirect calls filled, so the bytes are doubles for one caller and a pointer for
// the other, and the copy's adjoint cannot be chosen: a compile-time error naming
// the copy, never a guess. (Passing, copy-constructing and cloning such a std::function
// differentiates: rev2/cxx/std_function_captures.cpp.)
#include <cmath>
#include <cstdio>
#include <functional>

extern "C" {
extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);
}

using Fn = std::function<double(double)>;

static double assigned(const Fn &g, const double *x, int n) {
    Fn h = g;
    Fn k;
    k = h; /* DIAG-LINE */
    double s = 0;
    for (int i = 0; i < n; i++) s += k(x[i]) * h(x[i]);
    return s;
}

double f(const double *x, double a, double b, int n) {
    double c = a * b;
    Fn small = [a, b](double t) { return a * std::sin(t) + b * t * t; };
    Fn large = [a, b, c](double t) { return a * std::sin(t) + b * t * t + c * t; };
    return assigned(small, x, n) + assigned(large, x, n);
}

int main() {
    double x[3] = {0.5, -1.25, 2.0}, dx[3] = {0, 0, 0};
    __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_const, 1.5, enzyme_const, 0.5, enzyme_const, 3);
    std::printf("%g\n", dx[0]);
    return 0;
}
