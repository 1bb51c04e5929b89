// Forward mode (one tangent per input, and enzyme_width 2) with constant global tables
// standing where active memory does: a pointer chosen between
// a `static const` table and an active array (read in a loop, in both directions of
// the condition), a value `c ? table[i] : x[j]` (a select of addresses at -O2), an
// address chosen in an if/else (a phi), a float table, a pointer into the middle of a
// table (a constant expression), a memcpy from such a pointer, and a struct holding a
// table pointer next to an active one, read by a noinline helper. A constant's shadow
// is zeroed scratch: the tangents read there are 0. Central
// differences (the branches stay on one side at these points).
// tol: rel=1e-6 abs=1e-8
// grads: 14
#include <stdio.h>
#include <string.h>

extern int enzyme_dup, enzyme_const;
double __enzyme_fwddiff(void *, ...);
typedef struct { double d[2]; } Two;
Two __enzyme_fwddiff2(void *, ...) __asm__("__enzyme_fwddiff");
extern int enzyme_width;

static const double W[5] = {0.5, -1.25, 2.0, 0.75, 3.5};
const double V[4] = {1.5, 2.5, -0.5, 0.25};
static const float WF[4] = {0.5f, 1.5f, -2.0f, 0.25f};

struct Weighted { const double *coef; const double *x; int n; };

__attribute__((noinline)) static double weighted(const struct Weighted *w) {
    double r = 0;
    for (int i = 0; i < w->n; i++) r += w->coef[i] * w->x[i] * w->x[i];
    return r;
}

double f(double *x, int n, int m) {
    double loc[4];
    for (int i = 0; i < 4; i++) loc[i] = x[i] * x[i];
    const double *q = (x[0] > 0.5) ? W : loc;          /* table or active, by data */
    double s = 0;
    for (int i = 0; i < 4; i++) s += q[i] * x[i];
    const double *r = (m % 2 == 0) ? V : x;             /* by an integer */
    for (int i = 0; i < 3; i++) s += r[i] * x[i + 1];
    double sel = (x[1] > 0) ? W[n] : x[m];
    double sel2 = (n > 1) ? V[m] : loc[n];
    const double *p;
    if (x[2] > 1) p = W + 2; else p = loc + 1;          /* a phi of a constant expression */
    s += p[0] * p[1] * x[4];
    const float *pf = (x[3] < 0) ? WF : (const float *)0;
    if (pf) s += pf[m] * x[0];
    double copy[3];
    memcpy(copy, (x[4] > 0) ? V + 1 : x + 1, sizeof copy);
    s += copy[0] * copy[1] + copy[2] * x[0];
    struct Weighted w = {W, x, 4};
    s += weighted(&w);
    return s + sel * x[2] + sel2 * x[3];
}

static double fd(const double *x, int i, int n, int m) {
    double h = 1e-6, up[5], dn[5];
    memcpy(up, x, sizeof up);
    memcpy(dn, x, sizeof dn);
    up[i] += h;
    dn[i] -= h;
    return (f(up, n, m) - f(dn, n, m)) / (2 * h);
}

int main(void) {
    double points[2][5] = {{0.7, 1.3, 1.6, -0.4, 0.9}, {0.3, -0.8, 0.6, 1.1, -0.5}};
    for (int c = 0; c < 2; c++) {
        for (int i = 0; i < 5; i++) {
            double x[5], dx[5] = {0};
            memcpy(x, points[c], sizeof x);
            dx[i] = 1;
            double d = __enzyme_fwddiff((void *)f, enzyme_dup, x, dx, enzyme_const, 2, enzyme_const, 1 + c);
            printf("grad c%d.d/dx[%d] %.17g %.17g\n", c, i, d, fd(points[c], i, 2, 1 + c));
        }
        double x[5], e0[5] = {0}, e1[5] = {0};
        memcpy(x, points[c], sizeof x);
        e0[0] = 1;
        e1[3] = 1;
        Two t = __enzyme_fwddiff2((void *)f, enzyme_width, 2, enzyme_dup, x, e0, e1, enzyme_const, 2,
                                  enzyme_const, 1 + c);
        printf("grad c%d.width[0] %.17g %.17g\n", c, t.d[0], fd(points[c], 0, 2, 1 + c));
        printf("grad c%d.width[1] %.17g %.17g\n", c, t.d[1], fd(points[c], 3, 2, 1 + c));
    }
    return 0;
}
