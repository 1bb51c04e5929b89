// Managers reached through function pointers that store an address into their
// destination for one operation and copy a double there for another, after other
// work: one counts its calls and then branches on its operation argument, one
// returns early on a null destination and then switches on the operation read from
// a command record. Each is split into a dispatcher and one function per case; the
// dispatcher chooses first (the argument; for the record, a copy of the null check
// and then the load) and the case does everything, so the count is kept once per
// call (checked after the gradient call, and after forward mode) and the gradient
// matches. Reference: central finite differences; the call count: its exact value.
// tol: rel=1e-6 abs=1e-8
// grads: 8
#include <math.h>
#include <stdio.h>
#include <string.h>

extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

enum op { ADDRESS, CLONE };
int manager_calls;

typedef struct { enum op o; void *dst; const void *src; } Cmd;

static void manage_cmd(const Cmd *c) {
    if (!c->dst)
        return;
    switch (c->o) {
    case ADDRESS: *(const void **)c->dst = c->src; break;
    case CLONE: *(double *)c->dst = *(const double *)c->src; break;
    }
}

static void manage_arg(enum op o, void *dst, const void *src) {
    manager_calls++;
    if (o == ADDRESS) {
        *(const void **)dst = src;
        return;
    }
    *(double *)dst = *(const double *)src;
}

typedef struct {
    double value;
    void (*by_arg)(enum op, void *, const void *);
    void (*by_cmd)(const Cmd *);
} Any;

__attribute__((noinline)) static void copy_by_arg(Any *dst, const Any *src) {
    src->by_arg(CLONE, &dst->value, &src->value);
}
__attribute__((noinline)) static void copy_by_cmd(Any *dst, const Any *src) {
    Cmd c = {CLONE, &dst->value, &src->value};
    src->by_cmd(&c);
}
__attribute__((noinline)) static const double *address_of(const Any *a) {
    const double *p;
    Cmd c = {ADDRESS, &p, &a->value};
    a->by_cmd(&c);
    return p;
}

double f(const double *x, int n) {
    double s = 0;
    for (int i = 0; i + 1 < n; i++) {
        Any a, b, c;
        a.value = x[i] * x[i + 1];
        a.by_arg = manage_arg;
        a.by_cmd = manage_cmd;
        copy_by_arg(&b, &a);
        b.by_cmd = manage_cmd;
        copy_by_cmd(&c, &b);
        c.by_cmd = manage_cmd;
        s += sin(b.value) + *address_of(&c) * c.value;
    }
    return s;
}

int main(void) {
    enum { N = 5 };
    double x[N] = {0.3, -1.2, 0.7, 2.0, -0.4}, dx[N] = {0}, h = 1e-6;
    manager_calls = 0;
    __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_const, N);
    printf("grad calls_reverse %d %d\n", manager_calls, N - 1);
    double t[N] = {1, 0.5, -0.25, 2, 1.5}, xp[N], xm[N];
    manager_calls = 0;
    double df = __enzyme_fwddiff((void *)f, enzyme_dup, x, t, enzyme_const, N);
    printf("grad calls_forward %d %d\n", manager_calls, N - 1);
    for (int i = 0; i < N; i++) {
        memcpy(xp, x, sizeof x);
        memcpy(xm, x, sizeof x);
        xp[i] += h;
        xm[i] -= h;
        printf("grad x%d %.17g %.17g\n", i, dx[i], (f(xp, N) - f(xm, N)) / (2 * h));
    }
    for (int i = 0; i < N; i++) xp[i] = x[i] + h * t[i], xm[i] = x[i] - h * t[i];
    printf("grad fwd %.17g %.17g\n", df, (f(xp, N) - f(xm, N)) / (2 * h));
    return 0;
}
