// Bessel functions (glibc's j0, j1, jn, y0, y1, yn and a float form) and libm's
// rounding to integers (lround, lrint, llround, ilogb) in differentiated code. The
// Bessel functions were "cannot differentiate call to external function 'j0'"
// (ClangEnzyme-19 differentiates them): j0' = -j1, j1' = j0 - j1 / x, jn' =
// (j(n-1) - j(n+1)) / 2, likewise for y. The integer rounding has no derivative; it
// was "cannot differentiate call to external function 'lround'" (Enzyme takes it
// as inactive too). Reverse and forward.
// Reference: central finite differences (points away from rounding jumps).
// tol: rel=1e-6 abs=1e-8
// grads: 10
#include <math.h>
#include <stdio.h>
#include <string.h>

extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

double f(const double *x) {
    int bucket = (int)lround(x[0] * 4) + (int)lrint(x[1]) + (int)llround(x[2] * 2) + ilogb(x[3]);
    double s = j0(x[0]) * (1 + bucket % 3) + j1(x[1]) * y0(x[2]) + y1(x[3]);
    s += jn(3, x[0] + x[1]) + jn(-2, x[2]) + yn(2, x[3]) * jn(0, x[1]) + yn(1, x[2]);
    s += (double)j1f((float)x[1]) * 0.0;  /* float form: compiled and run, no contribution */
    return s;
}

double j1_of(double x) { return j1(x); }
float j0f_of(float x) { return j0f(x); }

int main(void) {
    enum { N = 4 };
    double x[N] = {0.7, 1.4, 1.3, 2.2}, dx[N] = {0};
    __enzyme_autodiff((void *)f, enzyme_dup, x, dx);
    const double h = 1e-6;
    for (int i = 0; i < N; i++) {
        double a[N], b[N], t[N] = {0};
        memcpy(a, x, sizeof a);
        memcpy(b, x, sizeof b);
        a[i] += h;
        b[i] -= h;
        t[i] = 1;
        double fd = (f(a) - f(b)) / (2 * h);
        printf("grad x%d %.17g %.17g\n", i, dx[i], fd);
        printf("grad fwd_x%d %.17g %.17g\n", i, __enzyme_fwddiff((void *)f, enzyme_dup, x, t), fd);
    }
    /* j1 at 0: the limit 1/2 (j1(x) / x is 0/0 there) */
    double z = 0.0;
    printf("grad j1_at_0 %.17g %.17g\n", __enzyme_fwddiff((void *)j1_of, z, 1.0), 0.5);
    float zf = 0.9f;
    float df = ((float (*)(void *, float, float))__enzyme_fwddiff)((void *)j0f_of, zf, 1.0f);
    printf("grad j0f %.9g %.9g\n", df, -j1f(zf));
    return 0;
}
