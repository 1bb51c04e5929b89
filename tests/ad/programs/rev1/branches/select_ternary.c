// `?:` on doubles, which -O1 and above turn into `select` instructions (also a chain
// of them: a clamp).
// tol: rel=1e-12 abs=1e-14
// grads: 9
#include <math.h>
#include <stdio.h>

extern int enzyme_out;
typedef struct { double dx, dy; } Pair;
double __enzyme_autodiff(void *, ...);
Pair __enzyme_autodiff_pair(void *, int, double, int, double);

double sel(double x, double y) { return x > y ? x * x : y * sin(x); }
double clamp3(double x) {
    double c = x < -1.0 ? -1.0 : x;
    c = c > 2.0 ? 2.0 : c;
    return c * x;
}

int main(void) {
    const double pts[2][2] = {{2.0, 1.0}, {0.5, 1.5}};
    for (int i = 0; i < 2; i++) {
        double x = pts[i][0], y = pts[i][1];
        Pair p = __enzyme_autodiff_pair((void *)sel, enzyme_out, x, enzyme_out, y);
        printf("grad sel.dx#%d %.17g %.17g\n", i, p.dx, x > y ? 2 * x : y * cos(x));
        printf("grad sel.dy#%d %.17g %.17g\n", i, p.dy, x > y ? 0.0 : sin(x));
    }
    const double xs[] = {-3.0, 0.75, 5.0};
    for (int i = 0; i < 3; i++) {
        double x = xs[i];
        double ref = x < -1 ? -1.0 : (x > 2 ? 2.0 : 2 * x);
        printf("grad clamp@%g %.17g %.17g\n", x, __enzyme_autodiff((void *)clamp3, x), ref);
    }
    double xs2[] = {-1.0 - 1e-3, 2.0 + 1e-3};
    for (int i = 0; i < 2; i++) {
        double x = xs2[i];
        printf("grad clamp_edge#%d %.17g %.17g\n", i, __enzyme_autodiff((void *)clamp3, x),
               i == 0 ? -1.0 : 2.0);
    }
    return 0;
}
