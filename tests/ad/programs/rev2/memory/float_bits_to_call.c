// The bits of active floats copied into integers (memcpy, as type punning does) and
// passed to functions that are not inlined, which store them where the caller reads
// them back as floats (Enzyme's subdoublestore test does this with one double). The
// derivative must follow the bits into the callee: a zero here would be a silently
// wrong gradient. A callee may also return a float's bits (g). The same callee is
// also called from code that is not differentiated.
// tol: rel=1e-12 abs=1e-14
// grads: 6
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern int enzyme_dup, enzyme_const, enzyme_out;
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

__attribute__((noinline)) unsigned long long *store_bits(unsigned long long bits, unsigned long long tag) {
    unsigned long long *data = malloc(2 * sizeof *data);
    data[0] = bits;
    data[1] = tag;
    return data;
}

__attribute__((noinline)) void store_float_bits(unsigned int bits, float *out) {
    memcpy(out, &bits, sizeof bits);
}

double f(double x, float y) {
    unsigned long long bits;
    memcpy(&bits, &x, sizeof bits);
    unsigned long long *p = store_bits(bits, 3);
    double stored;
    memcpy(&stored, p, sizeof stored);
    free(p);
    unsigned int ybits;
    memcpy(&ybits, &y, sizeof ybits);
    float ystored;
    store_float_bits(ybits, &ystored);
    return stored * stored * ystored;
}

__attribute__((noinline)) unsigned long long cube_bits(double x) {
    double y = x * x * x;
    unsigned long long bits;
    memcpy(&bits, &y, sizeof bits);
    return bits;
}

double g(double x) {
    unsigned long long bits = cube_bits(x);
    double y;
    memcpy(&y, &bits, sizeof y);
    return 2 * y;
}

int main(void) {
    double x = 1.25;
    float y = 0.75f;
    unsigned long long *q = store_bits(42, 7);  /* the original, outside the derivative */
    if (q[0] != 42 || q[1] != 7) return 1;
    free(q);
    /* reverse: both partials at once; analytic: d/dx = 2 x y, d/dy = x^2 */
    typedef struct { double dx; float dy; } Grads;
    Grads (*grad)(void *, ...) = (Grads (*)(void *, ...))__enzyme_autodiff;
    Grads d = grad((void *)f, enzyme_out, x, enzyme_out, y);
    printf("grad rev_dx %.17g %.17g\n", d.dx, 2 * x * (double)y);
    printf("grad rev_dy %.17g %.17g\n", (double)d.dy, x * x);
    /* forward: one tangent per call */
    double tx = __enzyme_fwddiff((void *)f, x, 1.0, y, 0.0f);
    double ty = __enzyme_fwddiff((void *)f, x, 0.0, y, 1.0f);
    printf("grad fwd_dx %.17g %.17g\n", tx, 2 * x * (double)y);
    printf("grad fwd_dy %.17g %.17g\n", ty, x * x);
    /* returned bits; analytic: d/dx 2 x^3 = 6 x^2 */
    printf("grad rev_g %.17g %.17g\n", __enzyme_autodiff((void *)g, x), 6 * x * x);
    printf("grad fwd_g %.17g %.17g\n", __enzyme_fwddiff((void *)g, x, 1.0), 6 * x * x);
    return 0;
}
