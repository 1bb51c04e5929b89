// Diagnostic: diag/type_erased_manager.c with the operation and both pointers passed
// in a command record (`switch (c->op)`: the choice is a loaded value, not an
// argument): a C `any` of 8 bytes whose manager, reached through a function
// pointer, stores an address into its destination for one operation and copies the
// stored double for another. Type
// analysis joined both cases, so the copy looked like a pointer move: the
// gradient was silently zero at every -O level (ClangEnzyme-19 too). Each case is
// now typed on its own, and nothing in reach says what the copied bytes are (only
// the caller reads them, through a pointer the manager returned): a compile-time
// error at the copy, never a guess.
#include <math.h>
#include <stdio.h>
#include <string.h>

extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);

enum op { ADDRESS, CLONE };

typedef struct { enum op o; void *dst; const void *src; } Cmd;

typedef struct {
    unsigned char storage[8];
    void (*manage)(const Cmd *);
} Any;

static void manage_pair(const Cmd *c) {
    switch (c->o) {
    case ADDRESS: *(const void **)c->dst = c->src; break;
    case CLONE: memcpy(c->dst, c->src, 8); break; /* DIAG-LINE */
    }
}

__attribute__((noinline)) static void any_copy(Any *dst, const Any *src) {
    Cmd c = {CLONE, dst->storage, src->storage};
    src->manage(&c);
    dst->manage = src->manage;
}

__attribute__((noinline)) static const double *any_pair(const Any *a) {
    const double *p;
    Cmd c = {ADDRESS, &p, a->storage};
    a->manage(&c);
    return p;
}

double f(const double *x, int n) {
    double s = 0;
    for (int i = 0; i + 1 < n; i++) {
        Any a, b;
        double v = x[i] * x[i + 1];
        memcpy(a.storage, &v, sizeof v);
        a.manage = manage_pair;
        any_copy(&b, &a);
        const double *p = any_pair(&b);
        s += sin(p[0]);
    }
    return s;
}

int main(void) {
    enum { N = 5 };
    double x[N] = {0.3, -1.2, 0.7, 2.0, -0.4}, dx[N] = {0}, h = 1e-6;
    __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_const, N);
    for (int i = 0; i < N; i++) {
        double xp[N], xm[N];
        memcpy(xp, x, sizeof x);
        memcpy(xm, x, sizeof x);
        xp[i] += h;
        xm[i] -= h;
        printf("grad x%d %.17g %.17g\n", i, dx[i], (f(xp, N) - f(xm, N)) / (2 * h));
    }
    return 0;
}
