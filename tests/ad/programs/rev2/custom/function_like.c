// __enzyme_function_like: a user function declared to behave like libm's log1p gets
// log1p's derivative. Its body quantizes through an integer, which on its own would
// differentiate to 0.
// tol: rel=1e-12 abs=1e-14
// grads: 3
#include <math.h>
#include <stdio.h>

double __enzyme_autodiff(void *, ...);

double my_log1p(double a) { return (double)(long long)(log1p(a) * 1e15) * 1e-15; }

void *__enzyme_function_like[2] = {(void *)my_log1p, (void *)"log1p"};

double f(double x) { return my_log1p(x * x) * 3.0 + x; }

int main(void) {
    const double xs[] = {0.5, 1.25, -0.8};
    for (int i = 0; i < 3; i++) {
        double x = xs[i];
        printf("grad f@%g %.17g %.17g\n", x, __enzyme_autodiff((void *)f, x),
               3.0 * 2 * x / (1 + x * x) + 1);
    }
    return 0;
}
