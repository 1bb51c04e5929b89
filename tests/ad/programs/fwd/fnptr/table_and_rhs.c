// Forward mode through function pointers: a table of functions indexed by run-time op
// codes (truly indirect calls), a struct of function pointers (a C-style vtable), and
// an explicit Euler integrator whose right-hand side is a function pointer argument
// (the pointer itself enzyme_const); one and two directions (enzyme_width).
// References: analytic for the table and the vtable, central differences for Euler.
// tol: rel=1e-6 abs=1e-9
// grads: 13
#include <math.h>
#include <stdio.h>

extern int enzyme_dup, enzyme_const, enzyme_width;
double __enzyme_fwddiff(void *, ...);
typedef struct { double d[2]; } Two;
Two __enzyme_fwddiff2(void *, ...) __asm__("__enzyme_fwddiff");

typedef double (*unary)(double);
static double op_sq(double x) { return x * x; }
static double op_exp(double x) { return exp(0.5 * x); }
static double op_sin(double x) { return 3.0 * sin(x); }
static double op_lin(double x) { return 2.0 * x + 1.0; }
static unary const ops[4] = {op_sq, op_exp, op_sin, op_lin};
static double dop(int c, double x) {
    return c == 0 ? 2 * x : c == 1 ? 0.5 * exp(0.5 * x) : c == 2 ? 3 * cos(x) : 2.0;
}

double apply_all(const double *x, const int *code, int n) {
    double s = 0;
    for (int i = 0; i < n; i++) s += ops[code[i]](x[i]) * x[(i + 1) % n];
    return s;
}

/* a vtable: energy and its scale, chosen by a run-time kind */
typedef struct {
    double (*energy)(const double *q, double k);
    double (*scale)(double k);
} Model;
static double spring(const double *q, double k) { return 0.5 * k * q[0] * q[0] + q[1]; }
static double pendulum(const double *q, double k) { return k * (1 - cos(q[0])) + q[1] * q[1]; }
static double twice(double k) { return 2 * k; }
static double square(double k) { return k * k; }
static const Model models[2] = {{spring, twice}, {pendulum, square}};

double model_energy(int kind, const double *q, double k) {
    const Model *m = &models[kind];
    return m->energy(q, m->scale(k));
}

/* Euler with a right-hand side passed as a pointer */
typedef void (*rhs_fn)(const double *y, double k, double *dydt);
static void decay(const double *y, double k, double *dydt) {
    dydt[0] = -k * y[0];
    dydt[1] = k * y[0] - sin(y[1]);
}
static void swirl(const double *y, double k, double *dydt) {
    dydt[0] = -k * y[1] + y[0] * y[0] * 0.1;
    dydt[1] = k * y[0];
}
double euler(rhs_fn f, double *y, double k) {
    double d[2];
    for (int s = 0; s < 20; s++) {
        f(y, k, d);
        y[0] += 0.05 * d[0];
        y[1] += 0.05 * d[1];
    }
    return y[0] + 2 * y[1];
}
static rhs_fn pick_rhs(int i) { return i ? swirl : decay; }  /* the address is taken */

static double euler_at(rhs_fn f, const double *y0, double k) {
    double y[2] = {y0[0], y0[1]};
    return euler(f, y, k);
}

int main(void) {
    double x[4] = {0.3, -0.7, 1.1, 0.4}, v[4] = {1.0, 0.5, -0.25, 2.0}, w[4] = {0, 1, 0, -1};
    int code[4] = {2, 0, 3, 1};
    double ref = 0, ref2 = 0;
    for (int i = 0; i < 4; i++) {
        int j = (i + 1) % 4;
        ref += dop(code[i], x[i]) * v[i] * x[j] + ops[code[i]](x[i]) * v[j];
        ref2 += dop(code[i], x[i]) * w[i] * x[j] + ops[code[i]](x[i]) * w[j];
    }
    double d = __enzyme_fwddiff((void *)apply_all, x, v, enzyme_const, code, enzyme_const, 4);
    printf("grad table %.17g %.17g\n", d, ref);
    Two dd = __enzyme_fwddiff2((void *)apply_all, enzyme_width, 2, enzyme_dup, x, v, w, enzyme_const, code,
                               enzyme_const, 4);
    printf("grad table.lane0 %.17g %.17g\n", dd.d[0], ref);
    printf("grad table.lane1 %.17g %.17g\n", dd.d[1], ref2);

    double q[2] = {0.4, -0.3}, dq[2] = {1.0, 0.0}, k = 1.7;
    for (int kind = 0; kind < 2; kind++) {
        double dq0 = __enzyme_fwddiff((void *)model_energy, enzyme_const, kind, q, dq, enzyme_const, k);
        double dk = __enzyme_fwddiff((void *)model_energy, enzyme_const, kind, enzyme_const, q, k, 1.0);
        double e0 = kind ? k * k * sin(q[0]) : 2 * k * q[0];
        double ek = kind ? 2 * k * (1 - cos(q[0])) : q[0] * q[0];
        printf("grad model%d.q0 %.17g %.17g\n", kind, dq0, e0);
        printf("grad model%d.k %.17g %.17g\n", kind, dk, ek);
    }

    for (int r = 0; r < 2; r++) {
        rhs_fn f = pick_rhs(r);
        double y0[2] = {1.0, 0.5}, y[2], dy[2], h = 1e-6;
        for (int i = 0; i < 2; i++) {
            y[0] = y0[0], y[1] = y0[1], dy[0] = i == 0, dy[1] = i == 1;
            double dyi = __enzyme_fwddiff((void *)euler, enzyme_const, f, y, dy, enzyme_const, k);
            double up[2] = {y0[0] + h * (i == 0), y0[1] + h * (i == 1)};
            double dn[2] = {y0[0] - h * (i == 0), y0[1] - h * (i == 1)};
            printf("grad euler%d.y%d %.17g %.17g\n", r, i, dyi, (euler_at(f, up, k) - euler_at(f, dn, k)) / (2 * h));
        }
        y[0] = y0[0], y[1] = y0[1], dy[0] = dy[1] = 0;
        double dk = __enzyme_fwddiff((void *)euler, enzyme_const, f, y, dy, k, 1.0);
        printf("grad euler%d.k %.17g %.17g\n", r, dk, (euler_at(f, y0, k + h) - euler_at(f, y0, k - h)) / (2 * h));
    }
    return 0;
}
