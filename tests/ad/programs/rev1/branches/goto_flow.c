// Control flow written with goto: a loop, an early exit and a jump into shared code.
// tol: rel=1e-12 abs=1e-14
// grads: 6
#include <math.h>
#include <stdio.h>

extern int enzyme_out, enzyme_const;
double __enzyme_autodiff(void *, ...);

/* y = x; repeat k times: y = y*x + 1 (until y > limit); then finish: y * x */
double gotos(double x, int k, double limit) {
    double y = x;
    int i = 0;
again:
    if (i >= k) goto finish;
    y = y * x + 1.0;
    i++;
    if (y > limit) goto bail;
    goto again;
bail:
    y = y - 0.5 * x;
finish:
    return y * x;
}

int main(void) {
    const double xs[] = {0.5, 1.5, 3.0};
    const double limits[] = {100.0, 5.0};
    for (int j = 0; j < 2; j++) {
        for (int t = 0; t < 3; t++) {
            double x = xs[t], y = x, dy = 1.0;
            int i = 0, bailed = 0;
            while (i < 4) {
                dy = dy * x + y; /* derivative of y*x+1 */
                y = y * x + 1.0;
                i++;
                if (y > limits[j]) { bailed = 1; break; }
            }
            if (bailed) { y -= 0.5 * x; dy -= 0.5; }
            double ref = dy * x + y;
            double d = __enzyme_autodiff((void *)gotos, enzyme_out, x, enzyme_const, 4,
                                         enzyme_const, limits[j]);
            printf("grad goto@%g,lim%g %.17g %.17g\n", x, limits[j], d, ref);
        }
    }
    return 0;
}
