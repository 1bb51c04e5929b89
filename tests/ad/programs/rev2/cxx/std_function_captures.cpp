// std::function holding lambdas that capture active doubles by value: 16 bytes
// (stored inside the std::function), 24 bytes (on the heap), a pointer and a
// double; passed by reference and by value (the manager clones the functor) and
// copy-constructed. The manager switches on its operation: it stores a pointer
// into its destination in one case and copies the lambda there in another. Type
// analysis joined the cases: the copy's bytes had conflicting types, a
// compile-time error (ClangEnzyme-19 fails it too). Each case of a function that
// switches on an argument is now typed on its own (typeanalysis/cases.py).
// Reverse (array and captured scalar) and forward mode.
// Reference: central finite differences.
// tol: rel=1e-6 abs=1e-8
// grads: 30
#include <cmath>
#include <cstdio>
#include <functional>

extern "C" {
extern int enzyme_dup, enzyme_const, enzyme_out;
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);
}

using Fn = std::function<double(double)>;

static double by_value(Fn g, const double *x, int n) {
    double s = 0;
    for (int i = 0; i < n; i++) s += g(x[i]);
    return s;
}

static double by_reference(const Fn &g, const double *x, int n) {
    Fn h = g;
    Fn k = h;
    double s = 0;
    for (int i = 0; i < n; i++) s += k(x[i]) * h(x[i]);
    return s;
}

double local_capture(const double *x, double a, double b, int n) {
    Fn g = [a, b](double t) { return a * std::sin(t) + b * t * t; };
    return by_value(g, x, n) + by_reference(g, x, n);
}

double heap_capture(const double *x, double a, double b, int n) {
    double c = a * b;
    Fn g = [a, b, c](double t) { return a * std::sin(t) + b * t * t + c * t; };
    return by_value(g, x, n) + by_reference(g, x, n);
}

double pointer_capture(const double *x, double a, double b, int n) {
    const double *p = x;
    Fn g = [p, a](double t) { return a * t * p[0]; };
    return by_value(g, x, n) + by_reference(g, x, n) + b;
}

#define CHECK(f)                                                                              \
    do {                                                                                      \
        const int n = 4;                                                                      \
        double x[n] = {0.3, -0.7, 1.1, 0.5}, a = 1.3, b = -0.4, h = 1e-6;                     \
        double dx[n] = {0}, dx2[n] = {0}, tx[n] = {0};                                        \
        __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_const, a, enzyme_const, b,     \
                          enzyme_const, n);                                                   \
        double da = __enzyme_autodiff((void *)f, enzyme_dup, x, dx2, enzyme_out, a,           \
                                      enzyme_const, b, enzyme_const, n);                      \
        double ta = __enzyme_fwddiff((void *)f, enzyme_dup, x, tx, enzyme_dup, a, 1.0,        \
                                     enzyme_const, b, enzyme_const, n);                       \
        for (int i = 0; i < n; i++) {                                                         \
            double xp[n], xm[n];                                                              \
            for (int j = 0; j < n; j++) xp[j] = xm[j] = x[j];                                 \
            xp[i] += h;                                                                       \
            xm[i] -= h;                                                                       \
            double fd = (f(xp, a, b, n) - f(xm, a, b, n)) / (2 * h);                          \
            std::printf("grad %s_x%d %.17g %.17g\n", #f, i, dx[i], fd);                       \
            std::printf("grad %s_x%d_with_a %.17g %.17g\n", #f, i, dx2[i], fd);               \
        }                                                                                     \
        double fda = (f(x, a + h, b, n) - f(x, a - h, b, n)) / (2 * h);                       \
        std::printf("grad %s_a %.17g %.17g\n", #f, da, fda);                                  \
        std::printf("grad %s_fwd_a %.17g %.17g\n", #f, ta, fda);                              \
    } while (0)

int main() {
    CHECK(local_capture);
    CHECK(heap_capture);
    CHECK(pointer_capture);
    return 0;
}
