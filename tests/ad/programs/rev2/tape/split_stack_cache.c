// A function called from the differentiated one (not inlined: AD before
// optimization, so it gets an augmented forward and a reverse with a tape), whose
// constant-count loop sits in a branch and overwrites its data (like ADBench
// BA's rotation). Its caches are a stack block whose base pointers do not
// dominate the return: the reverse must reach the block through the tape, never
// through a pointer into the finished forward call's frame.
// Checked against central finite differences.
// tol: rel=1e-6 abs=1e-9
// grads: 4
// flags: --enzc-ad-before-opt
#include <math.h>
#include <stdio.h>

extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);

__attribute__((noinline)) void rot(const double *r, double *y) {
    double t = r[0] * r[0] + r[1] * r[1];
    if (t > 1e-3) {
        for (int i = 0; i < 3; i++)
            y[i] = sin(y[i] * r[i]) * t + y[(i + 1) % 3];
    } else {
        for (int i = 0; i < 3; i++)
            y[i] = y[i] + r[i];
    }
}

double f(const double *x) {
    double y[3] = {x[2], x[3], x[0] * x[3]};
    rot(x, y);
    rot(x, y);
    return y[0] * y[1] + y[2];
}

int main(void) {
    double x[4] = {0.7, -0.4, 1.3, 0.9}, dx[4] = {0};
    __enzyme_autodiff((void *)f, enzyme_dup, x, dx);
    for (int i = 0; i < 4; i++) {
        double h = 1e-6 * fmax(1.0, fabs(x[i])), keep = x[i];
        x[i] = keep + h;
        double up = f(x);
        x[i] = keep - h;
        double down = f(x);
        x[i] = keep;
        printf("grad dx[%d] %.17g %.17g\n", i, dx[i], (up - down) / (2 * h));
    }
    return 0;
}
