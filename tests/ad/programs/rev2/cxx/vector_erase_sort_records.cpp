// Records with tail padding in std::vector, erased and sorted: erase moves the
// elements after the position down with memmove (on the path where the vector is
// empty, `begin + 3` is the constant address `inttoptr (i64 48 to ptr)`, which
// type analysis took for an object and joined every type of the function into);
// std::sort of std::pair<double, int> moves pairs one at a time between the buffer
// and a temporary (a 16-byte memcpy with no `!tbaa.struct`, walked as
// `%"struct.std::pair"` records). Each was a located error ("conflicting types",
// "cannot deduce the type of the memory copied"); ClangEnzyme-19 refuses the erase
// ("Cannot deduce type of copy") and differentiates the sort.
// Reference: analytic (the sort order of x_i^2 is fixed by the inputs below).
//   erased: f = sum over kept i of x_i^2 (i + 1)        sorted: f = sum_r x_(r)^2 (r + 1)
// tol: rel=1e-12 abs=1e-12
// grads: 10
#include <algorithm>
#include <cstdio>
#include <utility>
#include <vector>

extern int enzyme_dup, enzyme_const;
extern double __enzyme_autodiff(void *, ...);

struct P { double x; int k; };

__attribute__((noinline)) double erased(const double *a, int n) {
    std::vector<P> v;
    for (int i = 0; i < n; i++)
        v.push_back(P{a[i], i});
    v.erase(v.begin() + 2);
    double s = 0;
    for (const P &p : v)
        s += p.x * p.x * (p.k + 1);
    return s;
}

__attribute__((noinline)) double sorted(const double *a, int n) {
    std::vector<std::pair<double, int>> v;
    for (int i = 0; i < n; i++)
        v.emplace_back(a[i] * a[i], i);
    std::sort(v.begin(), v.end());
    double s = 0;
    for (int r = 0; r < n; r++)
        s += v[r].first * (r + 1) + v[r].second;
    return s;
}

int main() {
    const int n = 5;
    double a[n] = {1.5, -0.5, 1.0, 0.75, -2.0}, da[n] = {0};
    __enzyme_autodiff((void *)erased, enzyme_dup, a, da, enzyme_const, n);
    for (int i = 0; i < n; i++)  // element 2 is erased
        std::printf("grad erased[%d] %.17g %.17g\n", i, da[i], i == 2 ? 0.0 : 2 * a[i] * (i + 1));
    double db[n] = {0};
    __enzyme_autodiff((void *)sorted, enzyme_dup, a, db, enzyme_const, n);
    const int rank[n] = {3, 0, 2, 1, 4};  // x^2 = 2.25, 0.25, 1, 0.5625, 4
    for (int i = 0; i < n; i++)
        std::printf("grad sorted[%d] %.17g %.17g\n", i, db[i], 2 * a[i] * (rank[i] + 1));
    return 0;
}
