/* Gradient of the n-dimensional Rosenbrock function, the classic optimization test:
 *
 *   f(x) = sum_{i=0}^{n-2} 100 (x[i+1] - x[i]^2)^2 + (1 - x[i])^2
 *
 * The whole gradient comes from one call: `x` is passed with its shadow `dx`
 * (enzyme_dup), and reverse mode adds df/dx[i] into dx[i]. The program then takes a
 * few gradient-descent steps, and checks the gradient against central differences.
 */
#include <math.h>
#include <stdio.h>

extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);

double rosenbrock(const double *x, int n) {
    double f = 0;
    for (int i = 0; i + 1 < n; i++) {
        double a = x[i + 1] - x[i] * x[i], b = 1.0 - x[i];
        f += 100.0 * a * a + b * b;
    }
    return f;
}

static void gradient(const double *x, double *dx, int n) {
    for (int i = 0; i < n; i++) dx[i] = 0.0; /* reverse mode accumulates: zero first */
    __enzyme_autodiff((void *)rosenbrock, enzyme_dup, x, dx, enzyme_const, n);
}

int main(void) {
    enum { N = 6 };
    double x[N], dx[N];
    for (int i = 0; i < N; i++) x[i] = (i % 2) ? 1.2 : -0.8;
    gradient(x, dx, N);

    printf("  f(x) = %.6f at x = (-0.8, 1.2, ...), n = %d\n", rosenbrock(x, N), N);
    int bad = 0;
    for (int i = 0; i < N; i++) {
        double save = x[i], h = 1e-6 * fmax(1.0, fabs(save));
        x[i] = save + h;
        double fp = rosenbrock(x, N);
        x[i] = save - h;
        double fm = rosenbrock(x, N);
        x[i] = save;
        double fd = (fp - fm) / (2 * h);
        int ok = fabs(dx[i] - fd) <= 1e-6 * fmax(1.0, fabs(fd));
        bad |= !ok;
        printf("  df/dx[%d]:  enzc %12.6f   finite differences %12.6f   %s\n", i, dx[i], fd,
               ok ? "ok" : "MISMATCH");
    }

    /* a little gradient descent, to show the gradient is useful */
    double f0 = rosenbrock(x, N);
    for (int step = 0; step < 2000; step++) {
        gradient(x, dx, N);
        for (int i = 0; i < N; i++) x[i] -= 1e-3 * dx[i];
    }
    double f1 = rosenbrock(x, N);
    printf("  2000 gradient-descent steps: f %.4f -> %.6f\n", f0, f1);
    return bad || !(f1 < f0);
}
