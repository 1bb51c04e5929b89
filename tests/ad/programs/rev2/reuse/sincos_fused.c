// A lone sin or cos whose derivative the reverse pass needs, of a load the reverse
// would keep for it alone: enzcc computes the other function in the forward pass
// too, from one sincos call (synth/sincos.py), and keeps it instead. Here: sin and
// cos in loops (an Euler-like recurrence that overwrites its state, so the argument
// is gone by the reverse pass; y[i] also summed, so not replaced), a sin of an
// inactive argument, a sin used only for its value in a branch, and sin and cos of
// products. Reference: central finite differences.
// tol: rel=1e-6 abs=1e-9
// grads: 10
#include <math.h>
#include <stdio.h>

extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);

enum { N = 5 };

__attribute__((noinline)) double model(double *y, const double *k, int n, int steps)
{
    double total = cos(y[0] * k[1]);
    for (int s = 0; s < steps; s++) {
        double forcing = 0.2 * sin(0.01 * s);      /* inactive argument */
        double last = y[n - 1];
        for (int i = n - 1; i > 0; i--)
            y[i] += 0.01 * (0.5 * sin(y[i - 1]) - k[i] * cos(y[i]) + forcing);
        y[0] += 0.01 * (0.5 * sin(last) - k[0] * y[0]);
        if (sin(y[1]) > 2.0)                        /* never: a value used only to branch */
            total += 1;
    }
    for (int i = 0; i < n; i++)
        total += y[i] * y[i] + sin(k[i] * 0.5) * y[i];
    return total;
}

static double run(const double *y0, const double *k, int n, int steps)
{
    double y[N];
    for (int i = 0; i < n; i++)
        y[i] = y0[i];
    return model(y, k, n, steps);
}

int main(int argc, char **argv)
{
    (void)argv;
    int n = N - 1 + argc, steps = 40;
    double y0[N], k[N], y[N], dy[N] = {0}, dk[N] = {0};
    for (int i = 0; i < n; i++) {
        y0[i] = 0.3 + 0.2 * i;
        k[i] = 0.8 - 0.1 * i;
        y[i] = y0[i];
    }
    __enzyme_autodiff((void *)model, enzyme_dup, y, dy, enzyme_dup, k, dk, enzyme_const, n, enzyme_const, steps);
    double *vars[2] = {y0, k}, *grads[2] = {dy, dk};
    const char *names[2] = {"dy0", "dk"};
    for (int v = 0; v < 2; v++)
        for (int i = 0; i < n; i++) {
            double *x = vars[v], keep = x[i], h = 1e-6 * fmax(1.0, fabs(keep));
            x[i] = keep + h;
            double up = run(y0, k, n, steps);
            x[i] = keep - h;
            double down = run(y0, k, n, steps);
            x[i] = keep;
            printf("grad %s[%d] %.17g %.17g\n", names[v], i, grads[v][i], (up - down) / (2 * h));
        }
    return 0;
}
