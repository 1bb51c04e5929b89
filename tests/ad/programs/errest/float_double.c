// __enzyme_error_estimate in float and double: the floor of each operation is one
// ulp of its own type (2^-23 relative for float, 2^-52 for double), and errors pass
// through fpext/fptrunc unchanged (a conversion adds no error of its own).
// tol: rel=1e-6 abs=0
// grads: 12
#include <stdio.h>
#include "errest.h"

float __enzyme_error_estimate(void *, ...);
double __enzyme_error_estimate_d(void *, ...);

float cube(float x) {
    float s = x * x;
    return s * x;
}

double cube_d(double x) {
    double s = x * x;
    return s * x;
}

/* a float product widened to double, scaled in double */
double widened(float x, float y) {
    float p = x * y;
    double w = p;
    return w * 3.0;
}

int main(void) {
    const float xs[3] = {1.7f, -40.25f, 3.0e-3f};
    const float es[3] = {0.0f, 1e-6f, 2e-3f};
    for (int k = 0; k < 3; k++) {
        float x = xs[k], ex = es[k];
        float s = x * x, c = s * x;
        float e1 = fmaxf(ulpf(s), fabsf(x * ex * x / s) + fabsf(x * ex * x / s));
        float ref = fmaxf(ulpf(c), fabsf(x * e1 * s / c) + fabsf(s * ex * x / c));
        printf("grad float_cube@%d %.9g %.9g\n", k, __enzyme_error_estimate((void *)cube, x, ex), ref);

        double xd = x, sd = xd * xd, cd = sd * xd;
        double e1d = op_error(sd, 2 * through(xd, ex, xd, sd));
        double refd = op_error(cd, through(xd, e1d, sd, cd) + through(sd, ex, xd, cd));
        printf("grad double_cube@%d %.17g %.17g\n", k, __enzyme_error_estimate_d((void *)cube_d, xd, (double)ex), refd);

        float y = 0.5f + k, ey = 0.0f;
        float p = x * y;
        float ep = fmaxf(ulpf(p), fabsf(y * ex * x / p) + fabsf(x * ey * y / p));
        double w = (double)p * 3.0;
        double refw = op_error(w, through(3.0, ep, p, w));
        printf("grad widened@%d %.17g %.17g\n", k, __enzyme_error_estimate_d((void *)widened, x, ex, y, ey), refw);
        /* with no input error the float result's error is its float ulp, not a double's */
        printf("grad float_floor@%d %.9g %.9g\n", k, __enzyme_error_estimate((void *)cube, x, 0.0f),
               fmaxf(ulpf(c), fabsf(x * ulpf(s) * s / c)));
    }
    return 0;
}
