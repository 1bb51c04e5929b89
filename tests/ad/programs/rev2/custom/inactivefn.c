// __enzyme_inactivefn: calls to registered functions carry no derivative. A scale
// factor computed from x is treated as a constant (so d/dx x*s(x) = s(x)), and a
// logging helper that stores active values needs no derivative.
// tol: rel=1e-12 abs=1e-14
// grads: 3
#include <math.h>
#include <stdio.h>

double __enzyme_autodiff(void *, ...);

static double log_buf[64];
static int log_len;

__attribute__((noinline)) double scale_of(double x) { return 1.0 + 0.5 * tanh(x); }
__attribute__((noinline)) void log_value(double v) { log_buf[log_len++ % 64] = v; }

void *__enzyme_inactivefn[2] = {(void *)scale_of, (void *)log_value};

double f(double x) {
    double s = scale_of(x);
    log_value(x * s);
    return x * s + x * x;
}

int main(void) {
    const double xs[] = {0.4, -1.2, 2.0};
    for (int i = 0; i < 3; i++) {
        double x = xs[i];
        printf("grad f@%g %.17g %.17g\n", x, __enzyme_autodiff((void *)f, x),
               (1.0 + 0.5 * tanh(x)) + 2 * x);
    }
    return log_len == 3 ? 0 : 4;
}
