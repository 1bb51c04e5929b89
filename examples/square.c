/* The smallest enzc program: differentiate f(x) = x * x.
 *
 *   .venv/bin/enzcc -O2 examples/square.c -lm -o square && ./square
 *
 * `__enzyme_autodiff` is replaced at compile time by a call to a synthesized
 * derivative of `square`; a double argument is "active" by default, so the call
 * returns d square / dx.
 */
#include <math.h>
#include <stdio.h>

double __enzyme_autodiff(void *, ...);

double square(double x) { return x * x; }

int main(void) {
    int bad = 0;
    for (double x = -2.0; x <= 2.0; x += 1.0) {
        double d = __enzyme_autodiff((void *)square, x);
        double h = 1e-6, fd = (square(x + h) - square(x - h)) / (2 * h);
        int ok = fabs(d - fd) <= 1e-6 * fmax(1.0, fabs(fd));
        bad |= !ok;
        printf("  d/dx x^2 at x = %4.1f:  enzc %8.4f   finite differences %8.4f   %s\n", x, d,
               fd, ok ? "ok" : "MISMATCH");
    }
    return bad;
}
