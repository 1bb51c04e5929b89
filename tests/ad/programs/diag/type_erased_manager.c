// Diagnostic: a hand-written type-erased value (a C `any`): 8 bytes of storage and
// a manager reached through a function pointer, which stores an address into its
// destination for one operation and copies the stored double for another. The
// manager picks the operation by a `switch` on its argument; with -DIF_ELSE by an
// if/else; with -DCOMMAND_RECORD it switches on the operation read from a command
// record (a loaded value, not an argument). -DCOUNTED writes a counter before the
// choice, -DCHECKED returns early on a null destination (the choice then ends a later
// block); each combines with the others. Type analysis joined both operations,
// so the copy looked like a pointer move: the gradient was silently zero at every
// -O level in all three forms (ClangEnzyme-19 too). Each operation is now typed on
// its own, and nothing in reach says what the copied bytes are (only the caller
// reads them, through a pointer the manager returned): a compile-time error at the
// copy, never a guess.
#include <math.h>
#include <stdio.h>
#include <string.h>

extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);

enum op { ADDRESS, CLONE };

int manager_calls; /* a statistic the manager keeps (-DCOUNTED) */

#ifdef COMMAND_RECORD
typedef struct { enum op o; void *dst; const void *src; } Cmd;
typedef void Manager(const Cmd *);
static void manage_pair(const Cmd *c) {
    enum op o = c->o;
    void *dst = c->dst;
    const void *src = c->src;
#else
typedef void Manager(enum op, void *, const void *);
static void manage_pair(enum op o, void *dst, const void *src) {
#endif
#ifdef COUNTED
    manager_calls++; /* a write before the choice */
#endif
#ifdef CHECKED
    if (!dst) /* the choice in a later block */
        return;
#endif
#ifdef IF_ELSE
    if (o == ADDRESS) {
        *(const void **)dst = src;
        return;
    }
#else
    switch (o) {
    case ADDRESS: *(const void **)dst = src; return;
    case CLONE: break;
    }
#endif
    memcpy(dst, src, 8); /* DIAG-LINE */
}

typedef struct {
    unsigned char storage[8];
    Manager *manage;
} Any;

static void call_manager(const Any *a, enum op o, void *dst, const void *src) {
#ifdef COMMAND_RECORD
    Cmd c = {o, dst, src};
    a->manage(&c);
#else
    a->manage(o, dst, src);
#endif
}

__attribute__((noinline)) static void any_copy(Any *dst, const Any *src) {
    call_manager(src, CLONE, dst->storage, src->storage);
    dst->manage = src->manage;
}

__attribute__((noinline)) static const double *any_pair(const Any *a) {
    const double *p;
    call_manager(a, ADDRESS, &p, a->storage);
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
