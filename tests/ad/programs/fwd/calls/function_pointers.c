// Forward mode through function pointers: a constant table indexed by run-time data,
// a struct of function pointers selected per object (a C "vtable"), a callback passed
// as an enzyme_const argument to an integrator, and a pointer chosen by a condition.
// Each indirect call calls the forward derivative of the function the pointer holds
// (found among the functions whose address is taken). Analytic derivatives.
// tol: rel=1e-12 abs=1e-14
// grads: 9
#include <math.h>
#include <stdio.h>

extern int enzyme_dup, enzyme_const;
double __enzyme_fwddiff(void *, ...);

typedef double (*unary)(double);
static double op_sq(double x) { return x * x; }
static double op_exp(double x) { return exp(0.5 * x); }
static double op_sin(double x) { return sin(x) * 3.0; }
static unary const ops[3] = {op_sq, op_exp, op_sin};

double apply_all(const double *x, const int *code, int n) {
    double s = 0;
    for (int i = 0; i < n; i++) s += ops[code[i]](x[i]) * (i + 1);
    return s;
}

typedef struct {
    double (*area)(const double *dims);
    double (*perimeter)(const double *dims);
} ShapeOps;
static double rect_area(const double *d) { return d[0] * d[1]; }
static double rect_perim(const double *d) { return 2 * (d[0] + d[1]); }
static double circ_area(const double *d) { return M_PI * d[0] * d[0]; }
static double circ_perim(const double *d) { return 2 * M_PI * d[0]; }
static const ShapeOps RECT = {rect_area, rect_perim}, CIRC = {circ_area, circ_perim};
typedef struct { const ShapeOps *ops; int offset; } Shape;

double score(const double *dims, const Shape *shapes, int n) {
    double s = 0;
    for (int i = 0; i < n; i++) {
        const double *d = dims + shapes[i].offset;
        s += shapes[i].ops->area(d) / shapes[i].ops->perimeter(d);
    }
    return s;
}

/* explicit Euler for y' = rhs(t, y, k) */
__attribute__((noinline)) static double decay(double t, double y, double k) { return -k * y + 0.1 * t; }
double integrate(double (*rhs)(double, double, double), double y0, double k, int steps) {
    double y = y0, h = 0.1;
    for (int i = 0; i < steps; i++) y += h * rhs(i * h, y, k);
    return y;
}

double choose(double x, int which) {
    unary f = which > 1 ? op_sin : op_exp;
    return f(x) * x;
}

int main(void) {
    double x[3] = {0.4, -0.3, 1.1};
    int code[3] = {2, 0, 1};
    for (int j = 0; j < 3; j++) {
        double dx[3] = {0};
        dx[j] = 1;
        double d = __enzyme_fwddiff((void *)apply_all, enzyme_dup, x, dx, enzyme_const, code, enzyme_const, 3);
        double v = x[j], want = code[j] == 0 ? 2 * v : code[j] == 1 ? 0.5 * exp(0.5 * v) : 3 * cos(v);
        printf("grad apply_all/dx[%d] %.17g %.17g\n", j, d, want * (j + 1));
    }
    double dims[3] = {2.0, 3.0, 1.5};
    Shape shapes[2] = {{&RECT, 0}, {&CIRC, 2}};
    double t_w[3] = {1, 0, 0}, t_r[3] = {0, 0, 1};
    double w = dims[0], h = dims[1];
    printf("grad score/dw %.17g %.17g\n",
           __enzyme_fwddiff((void *)score, enzyme_dup, dims, t_w, enzyme_const, shapes, enzyme_const, 2),
           h * h / (2 * (w + h) * (w + h)));
    printf("grad score/dr %.17g %.17g\n",
           __enzyme_fwddiff((void *)score, enzyme_dup, dims, t_r, enzyme_const, shapes, enzyme_const, 2), 0.5);
    /* y_{i+1} = (1 - h k) y_i + 0.001 i: dy_n/dy0 = (1 - h k)^n, dy_n/dk by the recurrence */
    double k = 0.7, y0 = 1.3, a = 1 - 0.1 * k, y = y0, dy_dk = 0;
    for (int i = 0; i < 5; i++) { dy_dk = a * dy_dk - 0.1 * y; y = a * y + 0.001 * i; }
    printf("grad integrate/dy0 %.17g %.17g\n",
           __enzyme_fwddiff((void *)integrate, enzyme_const, decay, y0, 1.0, k, 0.0, enzyme_const, 5), pow(a, 5));
    printf("grad integrate/dk %.17g %.17g\n",
           __enzyme_fwddiff((void *)integrate, enzyme_const, decay, y0, 0.0, k, 1.0, enzyme_const, 5), dy_dk);
    double u = 0.8;
    printf("grad choose/sin %.17g %.17g\n", __enzyme_fwddiff((void *)choose, u, 1.0, enzyme_const, 2),
           3 * cos(u) * u + 3 * sin(u));
    printf("grad choose/exp %.17g %.17g\n", __enzyme_fwddiff((void *)choose, u, 1.0, enzyme_const, 0),
           0.5 * exp(0.5 * u) * u + exp(0.5 * u));
    return 0;
}
