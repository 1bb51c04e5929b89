// Built with -g (variable locations): forward mode copies the original's casts
// (fpext/fptrunc) for the tangents; the copies must not carry the original's debug
// records (`#dbg_value` of `z`), which named values of another function
// (`%<badref>` in the printed IR, rejected by LLVM). Scalar and vector forward
// mode (enzyme_width) against the analytic derivative.
// flags: -g
// tol: rel=1e-5 abs=1e-6
// grads: 6
#include <stdio.h>

extern int enzyme_dup, enzyme_const, enzyme_width, enzyme_dupnoneed;
float __enzyme_fwddiff_f(void *, ...);
typedef struct { float d0, d1; } Two;
Two __enzyme_fwddiff_two(void *, ...);

float g(const float *x, int n, float sigma) {
    float s = 0;
    for (int i = 0; i < n; i++) {
        float z = x[i] / sigma;
        s += 0.5 * z * z;
    }
    return s;
}

int main(void) {
    float x[3] = {1, 2, 3}, dx[3] = {0, 0, 0}, e0[3] = {1, 0, 0};
    double sq = 1 + 4 + 9;
    /* d/dsigma: -(sum x^2) / sigma^3 */
    float t = __enzyme_fwddiff_f((void *)g, enzyme_dup, x, dx, enzyme_const, 3, 2.0f, 1.0f);
    printf("grad dg/dsigma %.17g %.17g\n", (double)t, -sq / 8);
    /* d/dx[0]: x[0] / sigma^2 */
    t = __enzyme_fwddiff_f((void *)g, enzyme_dup, x, e0, enzyme_const, 3, 2.0f, 0.0f);
    printf("grad dg/dx0 %.17g %.17g\n", (double)t, 1.0 / 4);
    /* two directions at once: sigma and x[2] */
    float e2[3] = {0, 0, 1};
    Two v = __enzyme_fwddiff_two((void *)g, enzyme_width, 2, enzyme_dup, x, dx, e2, enzyme_const, 3,
                                 1.5f, 1.0f, 0.0f);
    printf("grad dg/dsigma.v %.17g %.17g\n", (double)v.d0, -sq / (1.5 * 1.5 * 1.5));
    printf("grad dg/dx2.v %.17g %.17g\n", (double)v.d1, 3 / (1.5 * 1.5));
    v = __enzyme_fwddiff_two((void *)g, enzyme_width, 2, enzyme_dup, x, e0, e2, enzyme_const, 3,
                             1.5f, 0.0f, 0.0f);
    printf("grad dg/dx0.v %.17g %.17g\n", (double)v.d0, 1 / (1.5 * 1.5));
    printf("grad dg/dx2.w %.17g %.17g\n", (double)v.d1, 3 / (1.5 * 1.5));
    return 0;
}
