// A table of function pointers indexed by run-time data: each element of the input
// is transformed by the function the op code selects (truly indirect calls).
// tol: rel=1e-12 abs=1e-14
// grads: 8
#include <math.h>
#include <stdio.h>

extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);

typedef double (*unary)(double);
static double op_sq(double x) { return x * x; }
static double op_exp(double x) { return exp(0.5 * x); }
static double op_sin(double x) { return sin(x) * 3.0; }
static double op_lin(double x) { return 2.0 * x + 1.0; }
static unary const ops[4] = {op_sq, op_exp, op_sin, op_lin};

double apply_all(const double *x, const int *code, int n) {
    double s = 0;
    for (int i = 0; i < n; i++) s += ops[code[i]](x[i]) * x[(i + 1) % n];
    return s;
}

static double dop(int c, double x) {
    switch (c) {
    case 0: return 2 * x;
    case 1: return 0.5 * exp(0.5 * x);
    case 2: return 3 * cos(x);
    default: return 2.0;
    }
}

int main(void) {
    enum { N = 8 };
    double x[N], dx[N] = {0};
    int code[N];
    for (int i = 0; i < N; i++) { x[i] = 0.2 * i - 0.5; code[i] = (i * 3 + 1) % 4; }
    __enzyme_autodiff((void *)apply_all, enzyme_dup, x, dx, enzyme_const, code, enzyme_const, N);
    for (int j = 0; j < N; j++) {
        int prev = (j + N - 1) % N;
        double r = dop(code[j], x[j]) * x[(j + 1) % N] + ops[code[prev]](x[prev]);
        printf("grad dx[%d] %.17g %.17g\n", j, dx[j], r);
    }
    return 0;
}
