// Records with padding (an int between two doubles) copied n at a time: a
// std::vector built from a range (one memcpy of n * 24 bytes) and a C-style copy
// walked by a pointer stepping one record at a time. Nothing types the padding
// and type analysis keeps facts for the first record only; the program walking
// the copy in steps of 24 bytes shows it holds records, and the record's TBAA
// node shows the padding. Both were "cannot deduce the type of the memory copied".
// Reference: analytic. f = sum_i x_i*y_i*k_i + sum_i 2*x_i*y_i
// tol: rel=1e-12 abs=1e-12
// grads: 6
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

extern int enzyme_dup, enzyme_const;
extern double __enzyme_autodiff(void *, ...);

struct Q { double x; int k; double y; };

__attribute__((noinline)) double from_range(const Q *s, int n) {
    std::vector<Q> v(s, s + n);
    double r = 0;
    for (const Q &q : v)
        r += q.x * q.y * q.k;
    return r;
}

__attribute__((noinline)) double stepping(const Q *s, int n) {
    Q *h = static_cast<Q *>(std::malloc(n * sizeof *h));
    std::memcpy(h, s, n * sizeof *h);
    double r = 0;
    for (const Q *p = h; p != h + n; ++p)
        r += 2 * p->x * p->y;
    std::free(h);
    return r;
}

__attribute__((noinline)) double f(const Q *s, int n) { return from_range(s, n) + stepping(s, n); }

int main() {
    Q q[3] = {{1.5, 2, 3.0}, {0.5, 3, 2.0}, {2.0, 1, 0.25}}, dq[3];
    std::memset(dq, 0, sizeof dq);
    __enzyme_autodiff((void *)f, enzyme_dup, q, dq, enzyme_const, 3);
    for (int i = 0; i < 3; i++) {
        std::printf("grad x[%d] %.17g %.17g\n", i, dq[i].x, q[i].y * q[i].k + 2 * q[i].y);
        std::printf("grad y[%d] %.17g %.17g\n", i, dq[i].y, q[i].x * q[i].k + 2 * q[i].x);
    }
    return 0;
}
