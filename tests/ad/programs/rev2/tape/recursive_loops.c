// A recursive function with a loop whose overwritten values are cached: each
// recursive call of the (split-mode) derivative has its own caches (heap and
// stack blocks). Checked
// against central finite differences.
// tol: rel=1e-6 abs=1e-9
// grads: 5
#include <math.h>
#include <stdio.h>

extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);

double rec(const double *x, int n, int depth) {
    double s = 0, t = 1;
    for (int i = 0; i < n; i++) {
        t = sin(t * x[i]) + 0.25 * t;
        s += t;
    }
    for (int k = 0; k < 3; k++)  /* constant count: its cache is a stack block, taped in split mode */
        t = cos(t * x[k]) * t;
    if (depth == 0) return s;
    return s * rec(x, n, depth - 1) * 0.5 + t;
}

int main(int argc, char **argv) {
    (void)argv;
    int n = 4 + argc;  /* 5 */
    double x[8], dx[8] = {0};
    for (int i = 0; i < n; i++) x[i] = 0.6 + 0.2 * i;
    __enzyme_autodiff((void *)rec, enzyme_dup, x, dx, enzyme_const, n, enzyme_const, 3);
    for (int i = 0; i < n; i++) {
        double h = 1e-6 * fmax(1.0, fabs(x[i])), keep = x[i];
        x[i] = keep + h;
        double up = rec(x, n, 3);
        x[i] = keep - h;
        double down = rec(x, n, 3);
        x[i] = keep;
        printf("grad dx[%d] %.17g %.17g\n", i, dx[i], (up - down) / (2 * h));
    }
    return 0;
}
