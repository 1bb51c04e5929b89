// libm's complex elementary functions beyond exp/log/sqrt: cpow (base and exponent
// active), csin, ccos, ctan, csinh, ccosh, ctanh, casin, cacos, catan, casinh,
// cacosh, catanh, and float forms (<2 x float> arguments). The derivative is
// f'(z) from the result or from libm again (sin: ccos(z); z^a: a z^(a-1) and
// z^a log z); reverse mode adds conj(f'(z)) dw, forward mode f'(z) dz. They were
// "cannot differentiate call to external function 'cpow'".
// Reference: central differences of the same function in double, h = 1e-6 (the
// float function against its double twin, which it agrees with to ~1e-7).
// tol: rel=1e-6 abs=1e-9
// grads: 36
#include <complex.h>
#include <stdio.h>

double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);
extern int enzyme_out;

static int which;

static double project(double complex w) { return creal(w) * 0.7 + cimag(w) * 1.3; }

double f(double a, double b) {
    double complex z = a + I * b;
    switch (which) {
    case 0: return project(cpow(z, 2.5 - 0.5 * I * a));
    case 1: return project(cpow(2.0 + I * a, z));
    case 2: return project(csin(z) * ccos(z * z));
    case 3: return project(ctan(z) + csinh(z) * ccosh(z) + ctanh(z));
    case 4: return project(casin(z) + cacos(z * 0.5) + catan(z));
    case 5: return project(casinh(z) + cacosh(z + 1.0) + catanh(z * 0.3));
    }
    return 0;
}

float f_float(float a, float b) {
    float complex z = a + I * b;
    float complex w = csinf(z) * cpowf(z, 1.5f) + catanf(z) + ccoshf(z) / ctanhf(z + 1.0f);
    return crealf(w) * 0.7f + cimagf(w) * 1.3f;
}

double f_float_in_double(double a, double b) {
    double complex z = a + I * b;
    double complex w = csin(z) * cpow(z, 1.5) + catan(z) + ccosh(z) / ctanh(z + 1.0);
    return project(w);
}

typedef struct { double a, b; } P2;
typedef struct { float a, b; } F2;

int main(void) {
    const double h = 1e-6, a = 0.7, b = 0.4;
    for (which = 0; which < 6; which++) {
        P2 d = ((P2(*)(void *, int, double, int, double))__enzyme_autodiff)((void *)f, enzyme_out, a, enzyme_out, b);
        double fa = (f(a + h, b) - f(a - h, b)) / (2 * h), fb = (f(a, b + h) - f(a, b - h)) / (2 * h);
        printf("grad rev%d_a %.17g %.17g\n", which, d.a, fa);
        printf("grad rev%d_b %.17g %.17g\n", which, d.b, fb);
        printf("grad fwd%d_a %.17g %.17g\n", which, __enzyme_fwddiff((void *)f, a, 1.0, b, 0.0), fa);
        printf("grad fwd%d_b %.17g %.17g\n", which, __enzyme_fwddiff((void *)f, a, 0.0, b, 1.0), fb);
    }
    for (float x = 0.3f; x < 1.0f; x += 0.3f) {
        float y = 0.5f - x * 0.4f;
        F2 d = ((F2(*)(void *, int, float, int, float))__enzyme_autodiff)((void *)f_float, enzyme_out, x, enzyme_out, y);
        double fa = (f_float_in_double(x + h, y) - f_float_in_double(x - h, y)) / (2 * h);
        double fb = (f_float_in_double(x, y + h) - f_float_in_double(x, y - h)) / (2 * h);
        printf("grad float_rev[%g]_a %.17g %.17g\n", x, (double)d.a, fa);
        printf("grad float_rev[%g]_b %.17g %.17g\n", x, (double)d.b, fb);
        float ta = ((float (*)(void *, float, float, float, float))__enzyme_fwddiff)((void *)f_float, x, 1.0f, y, 0.0f);
        float tb = ((float (*)(void *, float, float, float, float))__enzyme_fwddiff)((void *)f_float, x, 0.0f, y, 1.0f);
        printf("grad float_fwd[%g]_a %.17g %.17g\n", x, (double)ta, fa);
        printf("grad float_fwd[%g]_b %.17g %.17g\n", x, (double)tb, fb);
    }
    return 0;
}
