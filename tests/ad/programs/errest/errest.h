/* The reference of __enzyme_error_estimate's semantics (Enzyme's forward error
 * mode), written independently of the engine: an operation r = op(x_1, ..., x_n)
 * has the error max(ulp(r), sum_i |dr/dx_i * err(x_i) * x_i / r|), where ulp(r) is
 * the gap from |r| to the next float of r's type away from zero; NaN where the sum
 * is NaN (a zero result: 0 / 0 or 0 * inf). */
#include <math.h>

static double ulp(double r) {
    double a = fabs(r);
    return nextafter(a, INFINITY) - a;
}

static float ulpf(float r) {
    float a = fabsf(r);
    return nextafterf(a, INFINITY) - a;
}

/* The error of r given the sum of its operands' contributions (NaN where the sum
 * has no value: a zero result). */
static double op_error(double r, double contributions) {
    return isnan(contributions) ? contributions : fmax(ulp(r), contributions);
}

/* Operand x's contribution through a partial p: |p * err(x) * x / r|. */
static double through(double partial, double err, double x, double r) { return fabs(partial * err * x / r); }
