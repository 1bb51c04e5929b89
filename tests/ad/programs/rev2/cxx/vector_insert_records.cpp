// std::vector::insert of records with tail padding in the middle: the first insert
// finds the vector full and reallocates (moving `pos - begin` bytes before the new
// element and `end - pos` after it, `pos` an iterator the caller made), the second
// shifts the tail in place (memmove by one record). The position is whole records
// into the buffer by C++'s rules but nothing in the IR shows it: the copies are
// taken as the records both pointers start (the buffer is indexed as %struct.P, the
// iterator is what the caller passes, `begin + (pos - begin)` is `pos`) and their
// lengths checked at run time. A range insert appends one vector to another (the
// position the caller passes is `begin + (end - begin)`, with `end` an integer phi of
// addresses). Each copy was a located error ("conflicting types", then "cannot
// deduce the type of the memory copied"); ClangEnzyme-19 differentiates both.
// Reference: analytic.
//   inserted:     f = sum_i a_i^2 (i + 1) + (3 a_0)^2 * 10 + a_1^2 * 6
//   concatenated: f = sum_i a_i^2 (i + 1) + 2 sum_i a_i^3
// tol: rel=1e-12 abs=1e-12
// grads: 8
#include <algorithm>
#include <cstdio>
#include <iterator>
#include <vector>

extern int enzyme_dup, enzyme_const;
extern double __enzyme_autodiff(void *, ...);

struct P { double x; int k; };

__attribute__((noinline)) double inserted(const double *a, int n) {
    std::vector<P> v;
    for (int i = 0; i < n; i++)
        v.push_back(P{a[i], i});
    v.insert(v.begin() + 1, P{3 * a[0], 9});  // full: reallocates
    v.insert(v.begin() + 2, P{a[1], 5});      // in place
    double s = 0;
    for (const P &p : v)
        s += p.x * p.x * (p.k + 1);
    return s;
}

__attribute__((noinline)) double concatenated(const double *a, int n) {
    std::vector<P> odd, even;
    for (int i = 0; i < n; i++)
        (i % 2 ? odd : even).push_back(P{a[i], i});
    odd.insert(odd.end(), even.begin(), even.end());
    std::vector<P> all;
    std::copy(odd.begin(), odd.end(), std::back_inserter(all));
    std::vector<double> d(a, a + n), twice(d);
    twice.insert(twice.end(), d.begin(), d.end());
    double s = 0;
    for (const P &p : all)
        s += p.x * p.x * (p.k + 1);
    for (double x : twice)
        s += x * x * x;
    return s;
}

int main() {
    const int n = 4;  // a capacity of 4 after four push_backs: the first insert reallocates
    double a[n] = {0.5, -1.5, 2.0, 0.25}, da[n] = {0};
    __enzyme_autodiff((void *)inserted, enzyme_dup, a, da, enzyme_const, n);
    for (int i = 0; i < n; i++) {
        double expect = 2 * a[i] * (i + 1) + (i == 0 ? 180 * a[0] : 0) + (i == 1 ? 12 * a[1] : 0);
        std::printf("grad a[%d] %.17g %.17g\n", i, da[i], expect);
    }
    double db[n] = {0};
    __enzyme_autodiff((void *)concatenated, enzyme_dup, a, db, enzyme_const, n);
    for (int i = 0; i < n; i++)
        std::printf("grad cat[%d] %.17g %.17g\n", i, db[i], 2 * a[i] * (i + 1) + 6 * a[i] * a[i]);
    return 0;
}
