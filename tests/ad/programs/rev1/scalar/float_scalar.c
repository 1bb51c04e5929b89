// Float code through a typed float prototype; the reference is computed in double
// from the same float inputs, hence the float-precision tolerance.
// tol: rel=1e-5 abs=1e-6
// grads: 4
#include <math.h>
#include <stdio.h>

extern int enzyme_out, enzyme_const;
float __enzyme_autodiff_f(void *, int, float);
float __enzyme_autodiff_fc(void *, int, float, int, float);

float fpoly(float x) { return x * x * x - 2.0f * x + 1.0f; }
float fscale(float x, float k) { return k * x * x + k * k; }

int main(void) {
    float xs[] = {1.5f, -0.25f};
    for (int i = 0; i < 2; i++) {
        double x = xs[i];
        float d = __enzyme_autodiff_f((void *)fpoly, enzyme_out, xs[i]);
        printf("grad fpoly@%g %.17g %.17g\n", x, (double)d, 3 * x * x - 2);
        float k = 3.5f;
        float e = __enzyme_autodiff_fc((void *)fscale, enzyme_out, xs[i], enzyme_const, k);
        printf("grad fscale@%g %.17g %.17g\n", x, (double)e, 2 * (double)k * x);
    }
    return 0;
}
