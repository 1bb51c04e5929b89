// A `void *` copy helper (memcpy of the byte count its callers pass) called with six
// record types, directly and through a swap helper with a 64-byte scratch buffer:
// doubles beside ints, floats, chars, a char array, shorts and padding. The callers
// disagree on what the helper's memory holds, so no one typing of the helper is
// right; each call site gets a derivative made for what it passes (its argument
// types and its constant `sizeof`), as Enzyme types a derivative per call site.
// This was "cannot deduce the type of the memory copied by this memcpy";
// ClangEnzyme-19 rejects it too ("Cannot deduce type of copy"), and with two of the
// record types alone it silently drops the second copy's derivative.
// Reference: analytic.
//   f = 2 x0 x1 + x0 x1 x2 + 1.5 x2^2 + x0 x2 + (x0 + x1)^2 + 3 x0 x1 + constants
// tol: rel=1e-12 abs=1e-12
// grads: 6
#include <stdio.h>
#include <string.h>

extern double __enzyme_autodiff(void *, ...);
extern double __enzyme_fwddiff(void *, ...);
extern int enzyme_dup, enzyme_const;

struct A { double x; int tag; double y; };
struct B { int k; double v; double w; };
struct C { float f; int i; double d; char c; };
struct D { double p[3]; short s; };
struct E { long n; double q; };
struct F { char name[5]; double z; };

__attribute__((noinline)) void copy_bytes(void *to, const void *from, size_t n) {
    memcpy(to, from, n);
}

__attribute__((noinline)) void swap_bytes(void *a, void *b, size_t n) {
    char tmp[64];
    copy_bytes(tmp, a, n);
    copy_bytes(a, b, n);
    copy_bytes(b, tmp, n);
}

double f(const double *in) {
    struct A a = { in[0] * 2.0, 3, in[1] }, a2;
    struct B b = { 7, in[1] * in[0], in[2] }, b2;
    struct C c = { 1.5f, 2, in[2] * in[2], 'x' }, c2;
    struct D d = { { in[0], in[1], in[2] }, 4 }, d2 = { { 1, 2, 3 }, 5 };
    struct E e = { 9, in[0] + in[1] }, e2;
    struct F g = { "abcd", in[1] * 3.0 }, g2;
    copy_bytes(&a2, &a, sizeof a);
    copy_bytes(&b2, &b, sizeof b);
    copy_bytes(&c2, &c, sizeof c);
    swap_bytes(&d, &d2, sizeof d);
    copy_bytes(&e2, &e, sizeof e);
    copy_bytes(&g2, &g, sizeof g);
    return a2.x * a2.y + b2.v * b2.w + c2.d * c2.f + d2.p[0] * d2.p[2] + d.p[1]
           + e2.q * e2.q + g2.z * in[0] + a2.tag * b2.k + c2.i + d2.s + e2.n + g2.name[1];
}

int main(void) {
    double in[3] = {1.5, -2.0, 0.7}, d[3] = {0};
    double x0 = in[0], x1 = in[1], x2 = in[2];
    double want[3] = { 2 * x1 + x1 * x2 + x2 + 2 * (x0 + x1) + 3 * x1,
                       2 * x0 + x0 * x2 + 2 * (x0 + x1) + 3 * x0,
                       x0 * x1 + 3 * x2 + x0 };
    __enzyme_autodiff((void *)f, enzyme_dup, in, d);
    for (int i = 0; i < 3; i++)
        printf("grad d/dx%d %.17g %.17g\n", i, d[i], want[i]);
    for (int i = 0; i < 3; i++) {
        double t[3] = {0, 0, 0};
        t[i] = 1;
        double dt = __enzyme_fwddiff((void *)f, enzyme_dup, in, t);
        printf("grad forward_d/dx%d %.17g %.17g\n", i, dt, want[i]);
    }
    return 0;
}
