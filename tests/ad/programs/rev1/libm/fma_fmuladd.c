// fma() (llvm.fma) with three outs (sret result), and a*b+c in one expression, which
// clang contracts into llvm.fmuladd (-ffp-contract=on, the C default).
// tol: rel=1e-12 abs=1e-14
// grads: 6
#include <math.h>
#include <stdio.h>

extern int enzyme_out;
typedef struct { double da, db, dc; } Triple;
Triple __enzyme_autodiff3(void *, ...);

double f_fma(double a, double b, double c) { return fma(a, b, c) * c; }
double f_muladd(double a, double b, double c) { return a * b + c * c; }

int main(void) {
    double a = 1.5, b = -0.25, c = 2.0;
    Triple t = __enzyme_autodiff3((void *)f_fma, enzyme_out, a, enzyme_out, b, enzyme_out, c);
    printf("grad fma.da %.17g %.17g\n", t.da, b * c);
    printf("grad fma.db %.17g %.17g\n", t.db, a * c);
    printf("grad fma.dc %.17g %.17g\n", t.dc, a * b + 2 * c);
    Triple u = __enzyme_autodiff3((void *)f_muladd, enzyme_out, a, enzyme_out, b, enzyme_out, c);
    printf("grad muladd.da %.17g %.17g\n", u.da, b);
    printf("grad muladd.db %.17g %.17g\n", u.db, a);
    printf("grad muladd.dc %.17g %.17g\n", u.dc, 2 * c);
    return 0;
}
