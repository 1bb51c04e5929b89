/* libm usage: calls clang turns into intrinsics (fabs, sqrt, fma, floor, copysign,
   fmin/fmax, exp, log, pow, sin, cos, lround) in double, float and long double
   flavours, plus classification macros and errno-free (-fno-math-errno-like) use. */
#include <float.h>
#include <math.h>
#include <stdio.h>

static double hypot_naive(double x, double y) { return sqrt(x * x + y * y); }

static double softplus(double x) { return x > 30 ? x : log1p(exp(x)); }

static double sigmoid(double x) { return 1.0 / (1.0 + exp(-x)); }

static double poly_fma(const double *c, int n, double x) {
    double r = c[n - 1];
    for (int i = n - 2; i >= 0; i--)
        r = fma(r, x, c[i]);
    return r;
}

static float rms_f(const float *v, int n) {
    float s = 0.0f;
    for (int i = 0; i < n; i++)
        s += v[i] * v[i];
    return sqrtf(s / (float)n);
}

static double angle_stats(double a) {
    return sin(a) * cos(a) + tan(a / 4) + atan2(a, 1.0) + asin(0.5) + acos(0.25) + sinh(a / 8);
}

static double rounding(double x) {
    return floor(x) + ceil(x) + trunc(x) + round(x) + rint(x) + nearbyint(x) + (double)lround(x) +
           (double)llrint(x);
}

static double clamp_sign(double x, double lo, double hi) {
    return copysign(fmin(fmax(fabs(x), lo), hi), x);
}

static long double ld_math(long double x) { return sqrtl(x) + expl(x / 10) + fabsl(-x) + powl(x, 1.5L); }

static int classify(double x) {
    if (isnan(x)) return 0;
    if (isinf(x)) return 1;
    if (fpclassify(x) == FP_SUBNORMAL) return 2;
    if (x == 0.0) return signbit(x) ? 3 : 4;
    return isnormal(x) ? 5 : 6;
}

static double logsumexp(const double *x, int n) {
    double m = -INFINITY;
    for (int i = 0; i < n; i++)
        m = fmax(m, x[i]);
    double s = 0;
    for (int i = 0; i < n; i++)
        s += exp(x[i] - m);
    return m + log(s);
}

static float float_mix(float a, float b) {
    return fmaf(a, b, 1.0f) + fabsf(a - b) + floorf(a) + expf(b / 8) + logf(a + 2) + powf(a, 2.0f) +
           copysignf(1.0f, b) + fminf(a, b) + sinf(b) + cosf(a) + exp2f(a) + log2f(b + 8) +
           log10f(a + 3) + cbrtf(b);
}

int main(int argc, char **argv) {
    (void)argv;
    double c[4] = { 1, -2, 0.5, 0.25 };
    float v[5] = { 1, 2, 3, 4, (float)argc };
    double xs[4] = { 0.1, 2.0, -1.0, (double)argc };
    int frexp_exp;
    double mant = frexp(1234.5 * argc, &frexp_exp);
    printf("%g %g %g %g %g %g %g %g %Lg %d %g %g %g %d %g\n", hypot_naive(3, 4 * argc), softplus(argc),
           sigmoid(-argc), poly_fma(c, 4, 0.5 * argc), (double)rms_f(v, 5), angle_stats(argc),
           rounding(2.5 * argc), clamp_sign(-7.5, 1, 5), ld_math((long double)argc),
           classify(DBL_MIN / (1 << argc)), logsumexp(xs, 4), (double)float_mix(1.5f, (float)argc),
           mant, frexp_exp, ldexp(fmod(10.5, 3.0) + remainder(7.0, 2.0) + hypot(1.0, argc), 3));
    return 0;
}
