// Forward mode: tables of function pointers holding libm functions next to user functions (double
// and float), and a libm function chosen by a condition: a library function has no
// body in the program, so the pointer's target is differentiated through a wrapper
// that calls it with its derivative rule. Analytic derivatives (float: rel 1e-6).
// tol: rel=1e-6 abs=1e-12
// grads: 9
#include <math.h>
#include <stdio.h>

extern int enzyme_dup, enzyme_const, enzyme_out;
double __enzyme_fwddiff(void *, ...);
float __enzyme_fwddifff(void *, ...) __asm__("__enzyme_fwddiff");

static double sq(double x) { return x * x; }
static double (*const table[4])(double) = {sin, sq, tanh, atan};
static float sqf(float x) { return x * x; }
static float (*const tablef[3])(float) = {cosf, sqf, expf};

double f(double x, int k) { return table[k](x) * x; }
float g(float x, int k) { return tablef[k](x) * x; }
double choose(double x, double y) { double (*h)(double) = y > 0 ? exp : log1p; return h(x * y); }

int main(void) {
    double x = 0.6;
    const double dt[4] = {cos(x), 2 * x, 1 - tanh(x) * tanh(x), 1 / (1 + x * x)};
    const double t[4] = {sin(x), x * x, tanh(x), atan(x)};
    for (int k = 0; k < 4; k++)
        printf("grad df/dx[k=%d] %.17g %.17g\n", k, __enzyme_fwddiff((void *)f, x, 1.0, enzyme_const, k),
               dt[k] * x + t[k]);
    float y = 0.6f;
    const double gt[3] = {cos(y), (double)y * y, exp(y)}, gdt[3] = {-sin(y), 2.0 * y, exp(y)};
    for (int k = 0; k < 3; k++)
        printf("grad dg/dx[k=%d] %.17g %.17g\n", k,
               (double)__enzyme_fwddifff((void *)g, y, 1.0f, enzyme_const, k), gdt[k] * y + gt[k]);
    double a = 0.5, b = 1.5;
    printf("grad choose/dx[exp] %.17g %.17g\n", __enzyme_fwddiff((void *)choose, a, 1.0, enzyme_const, b),
           b * exp(a * b));
    printf("grad choose/dx[log1p] %.17g %.17g\n",
           __enzyme_fwddiff((void *)choose, a, 1.0, enzyme_const, -0.5), -0.5 / (1 - 0.5 * a));
    return 0;
}
