// Mutually recursive functions (even/odd steps applying different maps), so each
// function's derivative calls the other's.
// tol: rel=1e-12 abs=1e-14
// grads: 4
#include <math.h>
#include <stdio.h>

extern int enzyme_out, enzyme_const;
double __enzyme_autodiff(void *, ...);

double odd_step(double x, int n);

__attribute__((noinline)) double even_step(double x, int n) {
    if (n <= 0) return x;
    return odd_step(sin(x) + x, n - 1);
}

__attribute__((noinline)) double odd_step(double x, int n) {
    if (n <= 0) return x * x;
    return even_step(0.5 * x * x, n - 1);
}

int main(void) {
    const int ns[] = {0, 1, 4, 7};
    for (int i = 0; i < 4; i++) {
        int n = ns[i];
        double x = 0.6, d = 1.0;
        int k = n, even = 1;
        while (k > 0) {
            if (even) { d *= cos(x) + 1; x = sin(x) + x; }
            else { d *= x; x = 0.5 * x * x; }
            even = !even;
            k--;
        }
        if (!even) d *= 2 * x; /* ended in odd_step's base case */
        printf("grad mutual_n%d %.17g %.17g\n", n,
               __enzyme_autodiff((void *)even_step, enzyme_out, 0.6, enzyme_const, n), d);
    }
    return 0;
}
