// Forward mode through globals of doubles written with active values and given no
// shadow: enzc's own shadow holds their tangents and is cleared before each
// derivative call, so the tangent of a global's value on entry is 0 and nothing
// leaks from one call to the next (each function runs three times in a row).
// tol: rel=1e-12 abs=1e-14
// grads: 9
#include <math.h>
#include <stdio.h>

double __enzyme_fwddiff(void *, ...);

double acc;
double state = 1.0;
static double buf[3];

double f_acc(double x) {
    acc = x * x;
    return 3.0 * acc + sin(acc);
}

double f_state(double x) {
    double old = state;
    state = old * x + 1.0;
    return state * state + old;
}

double f_buf(double x) {
    for (int i = 0; i < 3; i++)
        buf[i] = (i + 1) * x;
    double s = 0;
    for (int i = 0; i < 3; i++)
        s += buf[i] * buf[i];
    return s;
}

int main(void) {
    const double x = 0.7;
    for (int k = 0; k < 3; k++) {
        printf("grad acc#%d %.17g %.17g\n", k, __enzyme_fwddiff((void *)f_acc, x, 1.0), (3.0 + cos(x * x)) * 2 * x);
        double old = state;
        printf("grad state#%d %.17g %.17g\n", k, __enzyme_fwddiff((void *)f_state, x, 1.0), 2 * (old * x + 1.0) * old);
        printf("grad buf#%d %.17g %.17g\n", k, __enzyme_fwddiff((void *)f_buf, x, 1.0), 28 * x);
    }
    return 0;
}
