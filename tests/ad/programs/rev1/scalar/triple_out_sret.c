// Three (and four) `enzyme_out` scalars: the result struct is too big for registers,
// so the call returns it through a hidden sret pointer (first IR argument).
// tol: rel=1e-12 abs=1e-14
// grads: 7
#include <math.h>
#include <stdio.h>

extern int enzyme_out;
typedef struct { double a, b, c; } Triple;
typedef struct { double a, b, c, d; } Quad;
Triple __enzyme_autodiff3(void *, ...);
Quad __enzyme_autodiff4(void *, ...);

double f3(double x, double y, double z) { return x * y * z + sin(x) * z; }
double f4(double a, double b, double c, double d) { return a * b - c * d + a * d * d; }

int main(void) {
    double x = 0.7, y = 1.9, z = -1.1;
    Triple t = __enzyme_autodiff3((void *)f3, enzyme_out, x, enzyme_out, y, enzyme_out, z);
    printf("grad f3.dx %.17g %.17g\n", t.a, y * z + cos(x) * z);
    printf("grad f3.dy %.17g %.17g\n", t.b, x * z);
    printf("grad f3.dz %.17g %.17g\n", t.c, x * y + sin(x));
    double a = 1.5, b = -2.0, c = 0.25, d = 3.0;
    Quad q = __enzyme_autodiff4((void *)f4, enzyme_out, a, enzyme_out, b, enzyme_out, c,
                                enzyme_out, d);
    printf("grad f4.da %.17g %.17g\n", q.a, b + d * d);
    printf("grad f4.db %.17g %.17g\n", q.b, a);
    printf("grad f4.dc %.17g %.17g\n", q.c, -d);
    printf("grad f4.dd %.17g %.17g\n", q.d, -c + 2 * a * d);
    return 0;
}
