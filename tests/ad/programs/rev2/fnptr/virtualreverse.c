// A struct holding a function pointer, differentiated with a shadow struct whose
// function pointer is __enzyme_virtualreverse(f) (Enzyme's way to give a function
// pointer its shadow). enzc finds the derivative of the function called through
// the pointer itself; the shadow pointer is accepted.
// tol: rel=1e-12 abs=1e-14
// grads: 4
#include <math.h>
#include <stdio.h>

void __enzyme_autodiff(void *, ...);
void *__enzyme_virtualreverse(void *);

typedef struct {
    double (*fn)(double);
    double val;
} Term;

double cube(double x) { return x * x * x; }
double wave(double x) { return sin(3 * x); }

double energy(const Term *t, int n) {
    double s = 0;
    for (int i = 0; i < n; i++) s += t[i].fn(t[i].val) * (i + 1);
    return s;
}

int main(void) {
    Term t[2] = {{cube, 0.7}, {wave, -0.4}};
    Term dt[2] = {{(double (*)(double))__enzyme_virtualreverse((void *)cube), 0.0},
                  {(double (*)(double))__enzyme_virtualreverse((void *)wave), 0.0}};
    for (int rep = 0; rep < 2; rep++) {
        dt[0].val = dt[1].val = 0;
        __enzyme_autodiff((void *)energy, t, dt, 2);
        printf("grad dval0[%d] %.17g %.17g\n", rep, dt[0].val, 3 * 0.7 * 0.7);
        printf("grad dval1[%d] %.17g %.17g\n", rep, dt[1].val, 2 * 3 * cos(3 * -0.4));
    }
    return 0;
}
