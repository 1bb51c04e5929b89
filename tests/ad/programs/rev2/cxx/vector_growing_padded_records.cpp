// std::vector of records with padding, grown and copied: push_back moves the old
// elements with memmove(new, begin, end - begin) when it reallocates, a copy
// or a range constructor copies end - begin bytes at once, insert shifts them.
// A record's tail padding (after an int, a char, a short) holds nothing, but
// nothing in the program types it, and a C++ class's tail may in general hold a
// derived class's members; an array of one record type walked as
// `getelementptr %struct.P` holds whole records, and end - begin of two pointers
// stepping one record at a time through one buffer is a whole number of records.
// Each copy was "cannot deduce the type of the memory copied by this memmove".
// Reference: analytic.
// f = sum_i (x_i^2 (i+1)) + sum_i (3 x_i (i+2)) + sum_i sin(2 x_i) (i + 3) + (x_0 + sum_i x_i^2 (i+1))
// tol: rel=1e-12 abs=1e-12
// grads: 5
#include <cmath>
#include <cstdio>
#include <vector>

extern int enzyme_dup, enzyme_const;
extern double __enzyme_autodiff(void *, ...);

struct P { double x; int id; };            // 4 bytes of tail padding
struct A { double x; char c; };            // 7
struct B { int id; double w; short s; };   // 4 between, 6 at the end
class C {                                   // a class with private members and constructors
  public:
    C(double v, int k) : v_(v), k_(k) {}
    double v() const { return v_; }
    int k() const { return k_; }
  private:
    double v_;
    int k_;
};

__attribute__((noinline)) double pushed(const double *a, int n) {
    std::vector<P> v;
    for (int i = 0; i < n; i++)
        v.push_back(P{a[i], i});
    double s = 0;
    for (const P &p : v)
        s += p.x * p.x * (p.id + 1);
    return s;
}

__attribute__((noinline)) double ranged(const double *a, int n) {
    std::vector<A> v;
    for (int i = 0; i < n; i++)
        v.push_back(A{a[i], static_cast<char>('a' + i)});
    std::vector<A> w(v.begin(), v.end());
    double s = 0;
    for (const A &p : w)
        s += 3 * p.x * (p.c - 'a' + 2);
    return s;
}

__attribute__((noinline)) double copied(const double *a, int n) {
    std::vector<B> v;
    for (int i = 0; i < n; i++)
        v.emplace_back(B{i, 2 * a[i], 3});
    std::vector<B> w = v;
    double s = 0;
    for (const B &p : w)
        s += std::sin(p.w) * (p.id + p.s);
    return s;
}

__attribute__((noinline)) double inserted(const double *a, int n) {
    std::vector<C> v;
    for (int i = 0; i < n; i++)
        v.emplace_back(a[i], i + 1);
    v.insert(v.begin(), C(a[0], 1));
    double s = 0;
    for (const C &p : v)
        s += p.v() * (p.k() == 1 && &p == &v[0] ? 1.0 : p.v() * p.k());
    return s;
}

__attribute__((noinline)) double f(const double *a, int n) {
    return pushed(a, n) + ranged(a, n) + copied(a, n) + inserted(a, n);
}

int main() {
    const int n = 5;
    double a[n] = {0.5, -1.25, 2.0, 0.75, 1.5}, da[n] = {0};
    __enzyme_autodiff((void *)f, enzyme_dup, a, da, enzyme_const, n);
    for (int i = 0; i < n; i++) {
        double pushed_d = 2 * a[i] * (i + 1);
        double ranged_d = 3.0 * (i + 2);
        double copied_d = 2 * std::cos(2 * a[i]) * (i + 3);
        double inserted_d = 2 * a[i] * (i + 1) + (i == 0 ? 1.0 : 0.0);
        std::printf("grad a[%d] %.17g %.17g\n", i, da[i], pushed_d + ranged_d + copied_d + inserted_d);
    }
    return 0;
}
