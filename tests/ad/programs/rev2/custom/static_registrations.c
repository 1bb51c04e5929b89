// Registrations declared `static` (clang does not even emit an unused static array,
// and O2 would delete it): each must still reach AD. The custom gradient of sq is
// deliberately 3x the true one, my_log1p's body quantizes (derivative 0 without its
// function-like registration), scale_of is inactive and last_input an inactive global.
// A body differentiated instead of a registration gives a different value.
// tol: rel=1e-12 abs=1e-14
// grads: 6
#include <math.h>
#include <stdio.h>

double __enzyme_autodiff(void *, ...);

double sq(double x) { return x * x; }
static double aug_sq(double x) { return sq(x); }
static double rev_sq(double x, double d_ret) { return 3.0 * 2.0 * x * d_ret; }
static void *__enzyme_register_gradient_sq[3] = {(void *)sq, (void *)aug_sq, (void *)rev_sq};

static double my_log1p(double a) { return (double)(long long)(log1p(a) * 1e15) * 1e-15; }
static void *__enzyme_function_like[2] = {(void *)my_log1p, (void *)"log1p"};

double scale_of(double x) { return 1.0 + 0.5 * tanh(x); }
static void *__enzyme_inactivefn[1] = {(void *)scale_of};

double last_input;
static void *__enzyme_inactive_global_last = (void *)&last_input;

double f(double x) { return sq(x) + x; }
double g(double x) {
    last_input = x;
    return my_log1p(x * x) * scale_of(x);
}

int main(void) {
    const double xs[] = {0.5, 1.25, -0.8};
    for (int i = 0; i < 3; i++) {
        double x = xs[i];
        printf("grad f@%g %.17g %.17g\n", x, __enzyme_autodiff((void *)f, x), 6.0 * x + 1.0);
        printf("grad g@%g %.17g %.17g\n", x, __enzyme_autodiff((void *)g, x),
               2 * x / (1 + x * x) * (1.0 + 0.5 * tanh(x)));
    }
    return last_input == xs[2] ? 0 : 3;
}
