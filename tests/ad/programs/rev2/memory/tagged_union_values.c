// Tagged-union values as an interpreter holds them: `struct { int tag; union {
// double d; long i; } u; }` pushed on a stack whose slots are reused with either
// kind, read back as `i64` and turned into a double by `bitcast` (a number) or
// `sitofp` (a count) chosen by the tag. Clang loads the union's word once as an
// integer; its memory holds doubles and longs alike, so the load was taken as an
// integer: a zero gradient, silently. The load whose bits the program casts to a
// double is now a double load (the integer reading gets its bits back), and bits
// that end in `sitofp` carry no derivative to lose. ClangEnzyme-19 rejects it.
// Reference: central finite differences; reverse and forward.
// tol: rel=1e-6 abs=1e-8
// grads: 14
#include <stdio.h>
#include <string.h>

extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

typedef struct { int tag; union { double d; long i; } u; } Val;

static Val num(double d) { Val v; v.tag = 0; v.u.d = d; return v; }
static Val cnt(long i) { Val v; v.tag = 1; v.u.i = i; return v; }
static double as_d(Val v) { return v.tag == 0 ? v.u.d : (double)v.u.i; }

double f(const double *x, int n) {
    Val st[8];
    int sp = 0;
    double s = 0;
    for (int round = 0; round < 3; round++) {  /* slots reused: a count over a number and back */
        for (int i = 0; i < n; i++) {
            if ((i + round) % 3 == 0) st[sp++] = cnt(i + round + 1);
            else st[sp++] = num(x[i] * x[i] + round);
        }
        while (sp > 0) {
            Val v = st[--sp];
            s = s * 0.5 + as_d(v) * (v.tag ? 0.1 : 1.0);
        }
    }
    return s;
}

int main(void) {
    enum { N = 7 };
    double x[N], dx[N] = {0};
    for (int i = 0; i < N; i++) x[i] = 0.4 * i - 1.1;
    __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_const, N);
    const double h = 1e-6;
    for (int i = 0; i < N; i++) {
        double a[N], b[N], t[N] = {0};
        memcpy(a, x, sizeof a);
        memcpy(b, x, sizeof b);
        a[i] += h;
        b[i] -= h;
        t[i] = 1;
        double fd = (f(a, N) - f(b, N)) / (2 * h);
        printf("grad x%d %.17g %.17g\n", i, dx[i], fd);
        printf("grad fwd_x%d %.17g %.17g\n", i, __enzyme_fwddiff((void *)f, enzyme_dup, x, t, enzyme_const, N), fd);
    }
    return 0;
}
