// Float libm variants: sinf, cosf, tanf, expf, exp2f, expm1f, logf, log2f, log10f,
// log1pf, sqrtf, powf; references in double from the same float inputs.
// tol: rel=1e-5 abs=1e-6
// grads: 13
#include <math.h>
#include <stdio.h>

extern int enzyme_out, enzyme_const;
float __enzyme_autodiff_f(void *, int, float);
typedef struct { float dx, dy; } FPair;
FPair __enzyme_autodiff_fpair(void *, int, float, int, float);

float f_sinf(float x) { return sinf(x); }
float f_cosf(float x) { return cosf(x); }
float f_tanf(float x) { return tanf(x); }
float f_expf(float x) { return expf(x); }
float f_exp2f(float x) { return exp2f(x); }
float f_expm1f(float x) { return expm1f(x); }
float f_logf(float x) { return logf(x); }
float f_log2f(float x) { return log2f(x); }
float f_log10f(float x) { return log10f(x); }
float f_log1pf(float x) { return log1pf(x); }
float f_sqrtf(float x) { return sqrtf(x); }
float f_powf(float x, float y) { return powf(x, y); }

#define CHECK(fn, ref) \
    printf("grad " #fn " %.17g %.17g\n", (double)__enzyme_autodiff_f((void *)fn, enzyme_out, xf), (double)(ref))

int main(void) {
    float xf = 0.7f;
    double x = xf;
    CHECK(f_sinf, cos(x));
    CHECK(f_cosf, -sin(x));
    CHECK(f_tanf, 1 / (cos(x) * cos(x)));
    CHECK(f_expf, exp(x));
    CHECK(f_exp2f, exp2(x) * M_LN2);
    CHECK(f_expm1f, exp(x));
    CHECK(f_logf, 1 / x);
    CHECK(f_log2f, 1 / (x * M_LN2));
    CHECK(f_log10f, 1 / (x * M_LN10));
    CHECK(f_log1pf, 1 / (1 + x));
    CHECK(f_sqrtf, 0.5 / sqrt(x));
    float yf = 1.6f;
    double y = yf;
    FPair p = __enzyme_autodiff_fpair((void *)f_powf, enzyme_out, xf, enzyme_out, yf);
    printf("grad powf.dx %.17g %.17g\n", (double)p.dx, y * pow(x, y - 1));
    printf("grad powf.dy %.17g %.17g\n", (double)p.dy, pow(x, y) * log(x));
    return 0;
}
