// Calls returning pairs of pointers in registers ({ptr, ptr}: std::pair of pointers,
// a struct of two, std::minmax_element's iterator pair): the callee's augmented
// function returns the shadows of both, and the caller reads through them.
// tol: rel=1e-12 abs=1e-14
// grads: 5
#include <algorithm>
#include <cstdio>
#include <utility>

extern "C" void __enzyme_autodiff(void *, ...);

struct Range {
    double *lo, *hi;
};

__attribute__((noinline)) std::pair<double *, double *> ends(double *a, int n) { return {a, a + n - 1}; }
__attribute__((noinline)) Range inner(double *a, int n) { return {a + 1, a + n - 2}; }

double f(double *a, int n) {
    auto p = ends(a, n);
    Range r = inner(a, n);
    auto mm = std::minmax_element(a, a + n);
    return *p.first * *p.second + *r.lo * 3 + *r.hi + (*mm.second - *mm.first);
}

int main() {
    double a[5] = {0.5, 2.0, -1.0, 4.0, 1.5}, da[5] = {0};
    __enzyme_autodiff((void *)f, a, da, 5);
    const double expect[5] = {a[4], 3, -1, 1 + 1, a[0]};  // a[2] is the min, a[3] the max
    for (int i = 0; i < 5; i++) std::printf("grad da[%d] %.17g %.17g\n", i, da[i], expect[i]);
    return 0;
}
