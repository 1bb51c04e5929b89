// A helper that switches on its operation (the shape of a type-erasing manager):
// one case stores an address into its destination, one copies 8 bytes there, one
// swaps the 4-byte halves of two unsigneds. Called directly with constant
// operations from code whose own loads and stores show what the bytes are. Type
// analysis joined what every case does to `dst`, so the copied double also looked
// like a pointer and an integer: a compile-time error. Each case is now typed by
// itself and by the calls that run it. Reverse and forward mode.
// Reference: central finite differences.
// tol: rel=1e-6 abs=1e-8
// grads: 10
#include <math.h>
#include <stdio.h>
#include <string.h>

extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

enum op { ADDRESS, CLONE, SWAP_HALVES };

__attribute__((noinline)) static void manage(enum op o, void *dst, const void *src) {
    switch (o) {
    case ADDRESS: *(const void **)dst = src; break;
    case CLONE: memcpy(dst, src, 8); break;
    case SWAP_HALVES: {
        unsigned lo, hi;
        memcpy(&lo, src, 4);
        memcpy(&hi, (const char *)src + 4, 4);
        memcpy(dst, &hi, 4);
        memcpy((char *)dst + 4, &lo, 4);
        break;
    }
    }
}

double f(const double *x, int n) {
    double s = 0;
    unsigned mixed[2] = {1, 2}, swapped[2];
    manage(SWAP_HALVES, swapped, mixed);
    for (int i = 0; i < n; i++) {
        double v = x[i] * x[i], copy;
        manage(CLONE, &copy, &v);
        const double *p;
        manage(ADDRESS, &p, &copy);
        s += sin(*p) * (swapped[0] + swapped[1]) + copy;
    }
    return s;
}

int main(void) {
    enum { N = 5 };
    double x[N] = {0.3, -1.2, 0.7, 2.0, -0.4}, dx[N] = {0}, h = 1e-6;
    __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_const, N);
    for (int i = 0; i < N; i++) {
        double xp[N], xm[N];
        memcpy(xp, x, sizeof x);
        memcpy(xm, x, sizeof x);
        xp[i] += h;
        xm[i] -= h;
        double fd = (f(xp, N) - f(xm, N)) / (2 * h), t[N] = {0};
        t[i] = 1;
        printf("grad x%d %.17g %.17g\n", i, dx[i], fd);
        printf("grad fwd_x%d %.17g %.17g\n", i, __enzyme_fwddiff((void *)f, enzyme_dup, x, t, enzyme_const, N), fd);
    }
    return 0;
}
