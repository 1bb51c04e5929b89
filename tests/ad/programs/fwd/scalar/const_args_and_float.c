// Forward mode with enzyme_const arguments (an integer count and a constant
// coefficient), a float (single-precision) function, and a direction mixing two
// tangents: d = fx * dx + fy * dy.
// tol: rel=1e-5 abs=1e-7
// grads: 4
#include <math.h>
#include <stdio.h>

float __enzyme_fwddiff(void *, ...);
extern int enzyme_dup, enzyme_const;

float g(float x, int n, float c, float y) {
    float acc = 0;
    for (int i = 1; i <= n; i++) acc += c * powf(x, (float)i) / i + sinf(y * i);
    return acc;
}

int main(void) {
    const float xs[2] = {0.3f, 0.8f};
    for (int k = 0; k < 2; k++) {
        float x = xs[k], y = 0.5f, c = 1.5f;
        int n = 5;
        float d = __enzyme_fwddiff((void *)g, enzyme_dup, x, 2.0f, enzyme_const, n, enzyme_const, c,
                                   enzyme_dup, y, -1.0f);
        double fx = 0, fy = 0;
        for (int i = 1; i <= n; i++) {
            fx += c * pow(x, i - 1);
            fy += i * cos((double)y * i);
        }
        printf("grad dir@%d %.9g %.9g\n", k, d, 2.0 * fx - fy);
        float only_x = __enzyme_fwddiff((void *)g, x, 1.0f, enzyme_const, n, enzyme_const, c, y, 0.0f);
        printf("grad dx@%d %.9g %.9g\n", k, only_x, fx);
    }
    return 0;
}
