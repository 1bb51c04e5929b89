// A float function called through a variadic prototype: the float arguments are
// promoted to double at the call, and the engine must convert them back.
// tol: rel=1e-5 abs=1e-6
// grads: 3
#include <math.h>
#include <stdio.h>

extern int enzyme_out, enzyme_const;
float __enzyme_autodiff(void *, ...);

float f1(float x) { return x * sinf(x); }
float f2(float x, float c) { return c * x * x; }

int main(void) {
    float x = 0.8f, c = -1.5f;
    float d1 = __enzyme_autodiff((void *)f1, x); /* x promoted to double */
    printf("grad f1 %.17g %.17g\n", (double)d1, sin((double)x) + (double)x * cos((double)x));
    float d2 = __enzyme_autodiff((void *)f2, enzyme_out, x, enzyme_const, c);
    printf("grad f2 %.17g %.17g\n", (double)d2, 2.0 * c * x);
    float y = 2.0f;
    float d3 = __enzyme_autodiff((void *)f1, enzyme_out, y);
    printf("grad f1@2 %.17g %.17g\n", (double)d3, sin(2.0) + 2.0 * cos(2.0));
    return 0;
}
