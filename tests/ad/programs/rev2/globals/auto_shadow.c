// Globals of doubles written with active values and given no shadow: enzc makes one
// (zero-initialised, as newer Enzyme does) and clears it before each derivative call,
// so the global's value on entry counts as a constant and nothing one call leaves in
// the shadow reaches the next (each function is differentiated three times in a row:
// a leak would change the second and third results). Covers a scalar written and read
// back, a read before the write (its adjoint is what a leak would carry), a callee
// writing the global, an array filled by memcpy and in a loop, and a struct.
// tol: rel=1e-12 abs=1e-14
// grads: 15
#include <math.h>
#include <stdio.h>
#include <string.h>

double __enzyme_autodiff(void *, ...);

double acc;                       /* written, then read back */
double state = 1.0;               /* read before it is written: its entry value is a constant */
double saved;                     /* written by a noinline callee */
static double buf[4];             /* filled by memcpy and in a loop */
struct { double a, b; } pair;     /* a struct of doubles */

double f_acc(double x) {
    acc = x * x;
    return 3.0 * acc + sin(acc);
}

double f_state(double x) {
    double old = state;
    state = old * x + 1.0;
    return state * state + old;
}

__attribute__((noinline)) void save(double v) { saved = v * v; }
double f_saved(double x) {
    save(x);
    return saved * x;
}

double f_buf(double x) {
    double tmp[4] = {x, 2 * x, x * x, 1.0};
    memcpy(buf, tmp, sizeof buf);
    for (int i = 0; i < 4; i++)
        buf[i] = buf[i] * buf[i];
    return buf[0] + buf[1] + buf[2] + buf[3];
}

double f_pair(double x) {
    pair.a = exp(x);
    pair.b = pair.a * x;
    return pair.a + pair.b;
}

int main(void) {
    const double x = 0.7;
    for (int k = 0; k < 3; k++) {
        printf("grad acc#%d %.17g %.17g\n", k, __enzyme_autodiff((void *)f_acc, x), (3.0 + cos(x * x)) * 2 * x);
        double old = state; /* this call's entry value; f_state is not run between here and the gradient */
        printf("grad state#%d %.17g %.17g\n", k, __enzyme_autodiff((void *)f_state, x), 2 * (old * x + 1.0) * old);
        printf("grad saved#%d %.17g %.17g\n", k, __enzyme_autodiff((void *)f_saved, x), 3 * x * x);
        printf("grad buf#%d %.17g %.17g\n", k, __enzyme_autodiff((void *)f_buf, x), 2 * x + 8 * x + 4 * x * x * x);
        printf("grad pair#%d %.17g %.17g\n", k, __enzyme_autodiff((void *)f_pair, x), exp(x) * (2 + x));
    }
    return 0;
}
