// Forward mode through virtual calls: a base class with a pure virtual energy(), two
// derived classes, objects chosen at run time, called through base pointers
// (vtables): each call calls the forward derivative of the method the vtable holds.
// tol: rel=1e-12 abs=1e-14
// grads: 4
#include <enzyme/enzyme.h>

#include <cmath>
#include <cstdio>

struct Term {
    virtual ~Term() = default;
    virtual double energy(const double *x) const = 0;
};
struct Harmonic : Term {
    int i;
    double k;
    Harmonic(int i_, double k_) : i(i_), k(k_) {}
    double energy(const double *x) const override { return 0.5 * k * x[i] * x[i]; }
};
struct Coupling : Term {
    int i, j;
    Coupling(int i_, int j_) : i(i_), j(j_) {}
    double energy(const double *x) const override { return std::cos(x[i] - x[j]); }
};

double total(const double *x, Term *const *terms, int n) {
    double e = 0;
    for (int t = 0; t < n; t++) e += terms[t]->energy(x);
    return e;
}

int main(int argc, char **) {
    double k = argc > 5 ? 1.0 : 2.0; /* run-time data, so the calls stay virtual */
    Harmonic h0(0, k), h2(2, 3 * k);
    Coupling c01(0, 1), c13(1, 3);
    Term *terms[4] = {&h0, &c01, &h2, &c13};
    double x[4] = {0.3, -0.8, 1.1, 0.4};
    double s01 = std::sin(x[0] - x[1]), s13 = std::sin(x[1] - x[3]);
    const double ref[4] = {k * x[0] - s01, s01 - s13, 3 * k * x[2], s13};
    for (int i = 0; i < 4; i++) {
        double dx[4] = {0, 0, 0, 0};
        dx[i] = 1;
        double d = __enzyme_fwddiff<double>((void *)total, enzyme_dup, x, dx, enzyme_const, terms, enzyme_const, 4);
        std::printf("grad d/dx[%d] %.17g %.17g\n", i, d, ref[i]);
    }
    return 0;
}
