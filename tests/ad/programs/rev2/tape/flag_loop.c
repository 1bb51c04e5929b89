// A 2-iteration loop over a local array whose values are overwritten (like ADBench
// BA's projection): at -O2 LLVM turns its counter into `phi i1 [true], [false]`,
// whose count enzc finds by evaluating the exit test; the caches then live on the
// stack. Checked against central finite differences.
// tol: rel=1e-6 abs=1e-9
// grads: 5
#include <math.h>
#include <stdio.h>

extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);

__attribute__((noinline)) void proj(const double *cam, const double *w, const double *feat, double *err) {
    double y[3];
    for (int i = 0; i < 3; i++)
        y[i] = sin(cam[i]) + cam[(i + 1) % 3] * cam[3];
    double u[2] = {y[0] / y[2], y[1] / y[2]};
    double rho = u[0] * u[0] + u[1] * u[1];
    double distortion = 1 + cam[4] * rho + cam[4] * rho * rho;
    for (int i = 0; i < 2; i++)
        err[i] = *w * (cam[3] * distortion * u[i] + cam[i] - feat[i]) * exp(u[i]);
}

static double f(const double *cam, double w, int k) {
    double err[2], feat[2] = {0.25, -0.5};
    proj(cam, &w, feat, err);
    return err[k];
}

int main(void) {
    double cam[5] = {0.3, -0.2, 1.1, 0.7, 0.05}, w = 1.3, feat[2] = {0.25, -0.5};
    double dcam[5] = {0}, dw = 0, err[2], derr[2] = {1.0, 0.0};
    __enzyme_autodiff((void *)proj, enzyme_dup, cam, dcam, enzyme_dup, &w, &dw, enzyme_const, feat,
                      enzyme_dup, err, derr);
    for (int i = 0; i < 5; i++) {
        double h = 1e-6 * fmax(1.0, fabs(cam[i])), c[5];
        for (int j = 0; j < 5; j++) c[j] = cam[j];
        c[i] = cam[i] + h;
        double up = f(c, w, 0);
        c[i] = cam[i] - h;
        double down = f(c, w, 0);
        printf("grad dcam[%d] %.17g %.17g\n", i, dcam[i], (up - down) / (2 * h));
    }
    return 0;
}
