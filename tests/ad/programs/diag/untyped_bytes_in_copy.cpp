// Diagnostic: a class copied whole by a callee, between two heap objects (no local
// object declares its fields), holds a `char` buffer that nothing in reach reads or
// writes. Unlike an empty member and its padding (which the class's
// TBAA node shows to hold nothing, rev2/cxx/empty_member_copy.cpp), a char buffer may
// hold a double's bytes, so the copy's adjoint cannot be chosen: a compile-time
// error naming the copy, never a guess.
#include <enzyme/enzyme.h>

#include <cstdio>

struct Span {
    double *data;
    long size;
};
struct View : Span {
    long start;
    char raw[8];  // untyped bytes: may hold anything
    long stride;
    double scale;
};

__attribute__((noinline)) void copy_view(View *dst, const View *src) {
    *dst = *src; /* DIAG-LINE */
}

double energy(double *x, double w, long n) {
    View *views = new View[2];
    views[1].data = x;
    views[1].size = n;
    views[1].start = 1;
    views[1].stride = 1;
    views[1].scale = w * w;
    View *c = new View;
    copy_view(c, &views[1]);
    double s = 0;
    for (long i = c->start; i < c->size; i += c->stride) s += c->scale * c->data[i] * c->data[i - 1];
    delete c;
    delete[] views;
    return s;
}

int main() {
    double x[3] = {0.5, -1.25, 2.0}, dx[3] = {0, 0, 0};
    double dw = __enzyme_autodiff<double>((void *)energy, enzyme_dup, x, dx, enzyme_out, 1.5, enzyme_const, 3L);
    printf("%g %g\n", dw, dx[0]);
    return 0;
}
