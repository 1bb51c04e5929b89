// A trivially copyable class with a base and an empty member (Eigen's
// `variable_if_dynamic<long, 0>`, a size fixed at compile time) copied whole by a
// callee between two heap objects (no local object declares its fields): clang copies it with one memcpy whose bytes 24..32 (the empty member and
// its padding, `[8 x i8]` in the IR type) nothing accesses. The class's TBAA node
// shows them empty, so the copy moves the double after them and the data pointer's
// shadow. Reverse mode against central differences.
// tol: rel=1e-6 abs=1e-8
// grads: 4
#include <enzyme/enzyme.h>

#include <cstdio>

struct Fixed {
    static long value() { return 0; }
};
struct Span {
    double *data;
    long size;
};
struct View : Span {
    long start;
    Fixed col;  // empty: one byte, then 7 of padding
    long stride;
    double scale;
};

__attribute__((noinline)) void copy_view(View *dst, const View *src) { *dst = *src; }

double energy(double *x, double w, long n) {
    View *views = new View[2];
    views[1].data = x;
    views[1].size = n;
    views[1].start = 1;
    views[1].stride = 1 + views[1].col.value();
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
    const long n = 3;
    double x[n] = {0.5, -1.25, 2.0}, dx[n] = {0, 0, 0}, w = 1.5;
    double dw = __enzyme_autodiff<double>((void *)energy, enzyme_dup, x, dx, enzyme_out, w, enzyme_const, n);
    const double h = 1e-6;
    for (long i = 0; i < n; i++) {
        double s = x[i];
        x[i] = s + h;
        double up = energy(x, w, n);
        x[i] = s - h;
        double down = energy(x, w, n);
        x[i] = s;
        printf("grad x%ld %.17g %.17g\n", i, dx[i], (up - down) / (2 * h));
    }
    printf("grad w %.17g %.17g\n", dw, (energy(x, w + h, n) - energy(x, w - h, n)) / (2 * h));
    return 0;
}
