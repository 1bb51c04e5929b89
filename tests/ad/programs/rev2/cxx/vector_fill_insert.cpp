// std::vector's fill paths in differentiated code: resize(n, value) and
// insert(pos, n, value) (libstdc++'s _M_fill_insert) for doubles and for records of
// two doubles, of a double and an int, of a double[4]; into an empty vector (its
// end is a null pointer the optimizer passes as a constant), in the middle of a
// vector with spare capacity (filled in place) and past its capacity (moved to a
// new block). libstdc++ holds the fill value in a union with an `unsigned char`,
// so SROA reads a record as its first byte plus a memcpy of the rest: the two are
// joined again before differentiation (a double moved as 1 + 7 bytes has no
// type). Both were compile-time errors; ClangEnzyme-19 rejects both too.
// Reference: central finite differences; reverse and forward mode.
// tol: rel=1e-6 abs=1e-8
// grads: 10
#include <cmath>
#include <cstdio>
#include <vector>

extern "C" {
extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);
}

struct Two { double w, b; };
struct Tagged { double w; int k; };
struct Quad { double v[4]; };

double f(const double *x, int n) {
    std::vector<double> d;
    d.resize(n, x[0]);                                   // empty: end() is null
    d.insert(d.begin() + 1, 2, x[1] * x[2]);             // past capacity
    d.reserve(d.size() + 8);
    d.insert(d.begin() + 2, 3, sin(x[3]));               // in place, elements moved back
    std::vector<Two> t;
    t.resize(n, Two{x[0] * x[4], x[1]});
    t.reserve(2 * n + 4);
    t.insert(t.begin() + 1, 2, Two{x[2], x[3] * x[3]});  // in place
    t.resize(t.size() + 3, Two{x[4], 0.5 * x[0]});       // appended in place
    std::vector<Tagged> g;
    g.resize(n, Tagged{x[1] * x[3], 3});
    g.insert(g.end(), n, Tagged{x[4], 2});                // past capacity
    std::vector<Quad> q(2);
    q.resize(n, Quad{{x[0], x[1], x[2] * x[4], x[3]}});
    double s = 0, k = 1;
    for (double v : d) { s += v * k; k += 0.5; }
    for (const Two &e : t) { s += e.w * e.b * k; k += 0.25; }
    for (const Tagged &e : g) { s += e.w * e.w * e.k * k; k -= 0.1; }
    for (const Quad &e : q) s += e.v[0] * e.v[1] + e.v[2] * e.v[3] * k;
    return s;
}

int main() {
    const int n = 5;
    double x[n] = {0.9, -1.3, 0.7, 0.4, 1.6}, d[n] = {0};
    __enzyme_autodiff((void *)f, enzyme_dup, x, d, enzyme_const, n);
    const double h = 1e-6;
    for (int i = 0; i < n; i++) {
        double xp[n], xm[n];
        for (int j = 0; j < n; j++) xp[j] = xm[j] = x[j];
        xp[i] += h;
        xm[i] -= h;
        double fd = (f(xp, n) - f(xm, n)) / (2 * h);
        double t[n] = {0};
        t[i] = 1;
        printf("grad x%d %.17g %.17g\n", i, d[i], fd);
        printf("grad fwd_x%d %.17g %.17g\n", i, __enzyme_fwddiff((void *)f, enzyme_dup, x, t, enzyme_const, n), fd);
    }
    return 0;
}
