// Reductions of float vectors with clang's vector extensions:
// `__builtin_reduce_max`/`_min` (llvm.vector.reduce.fmax/fmin) on double and float
// vectors, beside lane sums written out. Each reduction becomes the chain of
// maxnum/minnum calls it is defined by in the copy being differentiated (it was
// "cannot differentiate call to external function 'llvm.vector.reduce.fmin'").
// Reverse and forward mode.
// Reference: central finite differences for the double code; for the float
// vector, the analytic derivative (finite differences of float code are too coarse).
// tol: rel=1e-6 abs=1e-8
// grads: 40
#include <math.h>
#include <stdio.h>
#include <string.h>

extern int enzyme_dup;
void __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);
float __enzyme_fwddiff_f(void *, ...) __asm__("__enzyme_fwddiff");

typedef double v4d __attribute__((ext_vector_type(4)));
typedef float v8f __attribute__((ext_vector_type(8)));

double f(const double *x) {
    v4d a = {x[0], x[1], x[2], x[3]}, b = {x[4], x[5], x[6], x[7]};
    v4d p = a * b + sin(x[8]);
    double s = p.x + p.y + p.z + p.w;
    return s * __builtin_reduce_max(a) + __builtin_reduce_min(b * b);
}

float g(const float *y) {
    v8f w = {y[0], y[1], y[2], y[3], y[4], y[5], y[6], y[7]};
    v8f sq = w * w;
    return 0.5f * __builtin_reduce_max(sq) + 2.0f * __builtin_reduce_min(w);
}

int main(void) {
    enum { N = 12 };
    double x[N] = {0.3, -1.2, 0.9, 0.1, 1.4, -0.6, 0.8, 2.0, -0.7, 0.45, -1.3, 0.2}, dx[N] = {0};
    enum { M = 8 };
    float y[M] = {0.5f, -1.25f, 0.75f, 2.0f, -0.25f, 1.5f, -3.0f, 0.125f}, dy[M] = {0};
    __enzyme_autodiff((void *)g, enzyme_dup, y, dy);
    for (int i = 0; i < M; i++) {
        float t[M] = {0};
        t[i] = 1;
        /* 0.5 max(y^2) takes y[6] = -3 (9); 2 min(y) takes y[6] too */
        double expected = i == 6 ? -3.0 + 2.0 : 0.0;
        printf("grad y%d %.9g %.9g\n", i, dy[i], expected);
        printf("grad fwd_y%d %.9g %.9g\n", i, __enzyme_fwddiff_f((void *)g, enzyme_dup, y, t), expected);
    }
    const double h = 1e-6;
    __enzyme_autodiff((void *)f, enzyme_dup, x, dx);
    for (int i = 0; i < N; i++) {
        double xp[N], xm[N], t[N] = {0};
        memcpy(xp, x, sizeof x);
        memcpy(xm, x, sizeof x);
        xp[i] += h;
        xm[i] -= h;
        t[i] = 1;
        double fd = (f(xp) - f(xm)) / (2 * h);
        printf("grad x%d %.17g %.17g\n", i, dx[i], fd);
        printf("grad fwd_x%d %.17g %.17g\n", i, __enzyme_fwddiff((void *)f, enzyme_dup, x, t), fd);
    }
    return 0;
}
