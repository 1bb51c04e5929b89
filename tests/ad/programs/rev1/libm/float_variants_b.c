// Float libm variants: asinf, acosf, atanf, atan2f, sinhf, coshf, tanhf, fabsf,
// copysignf, fminf, fmaxf, hypotf, cbrtf, erff, erfcf, fmaf, floorf (0).
// tol: rel=1e-5 abs=1e-6
// grads: 20
#include <math.h>
#include <stdio.h>

extern int enzyme_out;
float __enzyme_autodiff_f(void *, int, float);
typedef struct { float dx, dy; } FPair;
FPair __enzyme_autodiff_fpair(void *, int, float, int, float);

float f_asinf(float x) { return asinf(x); }
float f_acosf(float x) { return acosf(x); }
float f_atanf(float x) { return atanf(x); }
float f_sinhf(float x) { return sinhf(x); }
float f_coshf(float x) { return coshf(x); }
float f_tanhf(float x) { return tanhf(x); }
float f_fabsf(float x) { return fabsf(x) * 3.0f; }
float f_cbrtf(float x) { return cbrtf(x); }
float f_erff(float x) { return erff(x); }
float f_erfcf(float x) { return erfcf(x); }
float f_floorf(float x) { return floorf(x) * x; }
float f_fmaf(float x) { return fmaf(x, x, 2.0f * x); }
float f_atan2f(float y, float x) { return atan2f(y, x); }
float f_hypotf(float x, float y) { return hypotf(x, y); }
float f_minmax(float x, float y) { return fminf(x, y) + 2.0f * fmaxf(x, y); }
float f_copysignf(float x, float y) { return copysignf(x, y); }

#define CHECK(fn, ref) \
    printf("grad " #fn " %.17g %.17g\n", (double)__enzyme_autodiff_f((void *)fn, enzyme_out, xf), (double)(ref))

int main(void) {
    float xf = -0.45f;
    double x = xf;
    CHECK(f_asinf, 1 / sqrt(1 - x * x));
    CHECK(f_acosf, -1 / sqrt(1 - x * x));
    CHECK(f_atanf, 1 / (1 + x * x));
    CHECK(f_sinhf, cosh(x));
    CHECK(f_coshf, sinh(x));
    CHECK(f_tanhf, 1 - tanh(x) * tanh(x));
    CHECK(f_fabsf, -3.0);
    CHECK(f_cbrtf, 1 / (3 * cbrt(x) * cbrt(x)));
    CHECK(f_erff, 2 / sqrt(M_PI) * exp(-x * x));
    CHECK(f_erfcf, -2 / sqrt(M_PI) * exp(-x * x));
    CHECK(f_floorf, floor(x));
    CHECK(f_fmaf, 2 * x + 2);
    float yf = 1.25f;
    double y = yf;
    FPair a = __enzyme_autodiff_fpair((void *)f_atan2f, enzyme_out, yf, enzyme_out, xf);
    printf("grad atan2f.dy %.17g %.17g\n", (double)a.dx, x / (x * x + y * y));
    printf("grad atan2f.dx %.17g %.17g\n", (double)a.dy, -y / (x * x + y * y));
    FPair h = __enzyme_autodiff_fpair((void *)f_hypotf, enzyme_out, xf, enzyme_out, yf);
    printf("grad hypotf.dx %.17g %.17g\n", (double)h.dx, x / hypot(x, y));
    printf("grad hypotf.dy %.17g %.17g\n", (double)h.dy, y / hypot(x, y));
    FPair m = __enzyme_autodiff_fpair((void *)f_minmax, enzyme_out, xf, enzyme_out, yf);
    printf("grad minmax.dx %.17g %.17g\n", (double)m.dx, 1.0); /* x < y: fmin picks x */
    printf("grad minmax.dy %.17g %.17g\n", (double)m.dy, 2.0);
    FPair c = __enzyme_autodiff_fpair((void *)f_copysignf, enzyme_out, xf, enzyme_out, yf);
    printf("grad copysignf.dx %.17g %.17g\n", (double)c.dx, -1.0); /* x<0, y>0 */
    printf("grad copysignf.dy %.17g %.17g\n", (double)c.dy, 0.0);
    return 0;
}
