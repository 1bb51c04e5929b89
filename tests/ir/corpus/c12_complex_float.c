/* Floating-point zoo: _Complex arithmetic (mul/div via libcalls), long double (x86
   fp80), __float128 (fp128), _Float16 (half) and float<->int conversions. */
#include <complex.h>
#include <math.h>
#include <stdio.h>

static double complex rotate(double complex z, double angle) { return z * cexp(I * angle); }

static float complex fmix(float complex a, float complex b) { return a * b + conjf(a) / b; }

static double complex poly_eval(const double complex *coef, int n, double complex z) {
    double complex r = 0;
    for (int i = n - 1; i >= 0; i--)
        r = r * z + coef[i];
    return r;
}

static long double harmonic(int n) {
    long double s = 0.0L;
    for (int i = 1; i <= n; i++)
        s += 1.0L / i;
    return s;
}

static __float128 quad_square(__float128 x) { return x * x + (__float128)1 / 3; }

static _Float16 half_lerp(_Float16 a, _Float16 b, _Float16 t) { return a + (b - a) * t; }

static long double complex ld_complex(long double re) {
    long double complex z = re + 2.0L * I;
    return z * z;
}

static int conversions(double d, float f, long double ld) {
    long long ll = (long long)d;
    unsigned long long ull = (unsigned long long)ld;
    int i = (int)f;
    unsigned short us = (unsigned short)f;
    double back = (double)ull + (double)ll;
    float fb = (float)i;
    return (int)(back + fb + us);
}

int main(int argc, char **argv) {
    (void)argv;
    double complex z = rotate(1.0 + 2.0 * I, 0.25 * argc);
    float complex w = fmix(1.0f + 1.0f * I, 2.0f - (float)argc * I);
    double complex coef[3] = { 1, 2 * I, 3 };
    double complex p = poly_eval(coef, 3, z);
    long double h = harmonic(10 + argc);
    __float128 q = quad_square((__float128)argc);
    _Float16 hl = half_lerp((_Float16)1.0f, (_Float16)3.0f, (_Float16)0.25f);
    long double complex lz = ld_complex((long double)argc);
    printf("%g %g %g %g %Lg %g %g %Lg %d %g\n", creal(z), cimag(z), crealf(w), cabs(p), h,
           (double)q, (double)hl, creall(lz), conversions(3.7 * argc, 2.5f, 1e3L),
           carg(p) + fabs(cimag(p)));
    return 0;
}
