// Loop-carried recurrence x_{k+1} = sin(x_k) * a, N steps; derivatives with respect to
// x_0 and a, the reference propagated forward by the chain rule in C.
// tol: rel=1e-10 abs=1e-13
// grads: 4
#include <math.h>
#include <stdio.h>

extern int enzyme_out, enzyme_const;
typedef struct { double dx0, da; } Pair;
Pair __enzyme_autodiff_pair(void *, int, double, int, double, int, int);

double iterate(double x, double a, int n) {
    for (int k = 0; k < n; k++) x = sin(x) * a;
    return x;
}

int main(void) {
    const int ns[] = {10, 37};
    for (int t = 0; t < 2; t++) {
        double x = 0.9, a = 2.1, dx0 = 1.0, da = 0.0;
        for (int k = 0; k < ns[t]; k++) {
            double c = cos(x), s = sin(x);
            dx0 = c * a * dx0;
            da = c * a * da + s;
            x = s * a;
        }
        Pair p = __enzyme_autodiff_pair((void *)iterate, enzyme_out, 0.9, enzyme_out, 2.1,
                                        enzyme_const, ns[t]);
        printf("grad dx0_n%d %.17g %.17g\n", ns[t], p.dx0, dx0);
        printf("grad da_n%d %.17g %.17g\n", ns[t], p.da, da);
    }
    return 0;
}
