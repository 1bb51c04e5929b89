// Rotations computing sin and cos of the same angle (Rodrigues-like), once and
// inside a loop: the reverse pass reuses the forward cos for sin's derivative and
// the forward sin for cos's. Reference: analytic derivatives.
// tol: rel=1e-12 abs=1e-14
// grads: 5
#include <math.h>
#include <stdio.h>

extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);

enum { N = 4 };

/* Sum over i of |R(t_i) p|^2-weighted terms: x_i cos t_i - y_i sin t_i, plus a
 * global rotation by a. */
double rotate(const double *t, const double *a, int n) {
    double s = 0;
    for (int i = 0; i < n; i++) {
        double c = cos(t[i]), sn = sin(t[i]);
        s += (i + 1) * c - (2 - i) * sn + c * sn;
    }
    double ca = cos(*a), sa = sin(*a);
    return s * ca + sa * sa;
}

/* d/dt_i: -(i+1) sin - (2-i) cos + cos^2 - sin^2, times cos a.
 * d/da: -s sin a + 2 sin a cos a. */
int main(void) {
    double t[N], dt[N] = {0}, a = 0.7, da = 0;
    for (int i = 0; i < N; i++) t[i] = 0.3 + 0.9 * i;
    __enzyme_autodiff((void *)rotate, enzyme_dup, t, dt, enzyme_dup, &a, &da, enzyme_const, N);
    double s = 0;
    for (int i = 0; i < N; i++) {
        double c = cos(t[i]), sn = sin(t[i]);
        s += (i + 1) * c - (2 - i) * sn + c * sn;
        double ref = (-(i + 1) * sn - (2 - i) * c + c * c - sn * sn) * cos(a);
        printf("grad dt[%d] %.17g %.17g\n", i, dt[i], ref);
    }
    (void)s;
    double ref_a = -s * sin(a) + 2 * sin(a) * cos(a);
    printf("grad da %.17g %.17g\n", da, ref_a);
    return 0;
}
