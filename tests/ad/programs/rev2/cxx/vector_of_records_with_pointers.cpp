// A std::vector of records that hold a pointer to active data beside doubles and
// an int (with tail padding), grown by push_back (memmove of end - begin bytes on
// each reallocation) and copied whole. The copies must move every record's shadow
// pointer along and the doubles' adjoints back. The engine before this refused the
// copy ("cannot deduce the type", then "cannot copy an array of records holding both
// pointers and floating-point values"); ClangEnzyme-19 compiles it ("didn't implement
// memmove") and the program crashes.
// Reference: analytic. f = sum_i 0.5 (i+1) a_i^2 a_{(i+1) mod n}
// tol: rel=1e-12 abs=1e-12
// grads: 6
#include <cstdio>
#include <vector>

extern int enzyme_dup, enzyme_const;
extern double __enzyme_autodiff(void *, ...);

struct Body { double x; const double *w; double v; int id; };

__attribute__((noinline)) double f(const double *a, int n) {
    std::vector<Body> bodies;
    for (int i = 0; i < n; i++)
        bodies.push_back(Body{a[i], &a[(i + 1) % n], a[i] * 0.5, i});
    std::vector<Body> copy(bodies);
    double s = 0;
    for (const Body &b : copy)
        s += *b.w * b.x * b.v * (b.id + 1);
    return s;
}

int main() {
    const int n = 6;
    double a[n] = {0.5, -1.5, 2.0, 0.25, 1.25, -0.75}, da[n] = {0};
    __enzyme_autodiff((void *)f, enzyme_dup, a, da, enzyme_const, n);
    for (int k = 0; k < n; k++) {
        int next = (k + 1) % n, prev = (k + n - 1) % n;
        double expect = (k + 1) * a[k] * a[next] + 0.5 * (prev + 1) * a[prev] * a[prev];
        std::printf("grad a[%d] %.17g %.17g\n", k, da[k], expect);
    }
    return 0;
}
