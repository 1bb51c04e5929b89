// A generic C vector (a `void *` block, the element size in the struct, grown with
// realloc, elements copied in with memcpy and reached as `(char *)data + i * elsize`)
// holding doubles and two kinds of records: {double, int, double} and {double,
// double, int} (tail padding). After inlining the element size is a constant, but
// the block is only walked in steps of it through `char *` arithmetic (no struct
// type indexes it), so the reverse of the realloc, which moves the kept adjoints
// back to the old block, was "cannot deduce the element type of memory moved by
// realloc". The block is now taken as records of the size it is walked in and
// allocated by, typed as type analysis shows the first. (ClangEnzyme-19: "Cannot
// deduce type of copy"; it passes with the doubles and one record type.) With
// -DNOT_INLINED the one copy in vec_push serves doubles and records: a located error
// at it (test_gradients_diagnostics.py, generic_vector_not_inlined; ClangEnzyme-19
// cannot size that realloc).
// Reference: central finite differences.
// tol: rel=1e-6 abs=1e-8
// grads: 7
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);

typedef struct { void *data; size_t n, cap, elsize; } Vec;

static void vec_init(Vec *v, size_t elsize) { v->data = NULL; v->n = v->cap = 0; v->elsize = elsize; }
#ifdef NOT_INLINED
__attribute__((noinline))
#endif
static void vec_push(Vec *v, const void *elem) {
    if (v->n == v->cap) {
        v->cap = v->cap ? 2 * v->cap : 2;
        v->data = realloc(v->data, v->cap * v->elsize);
    }
    memcpy((char *)v->data + v->n * v->elsize, elem, v->elsize); /* DIAG-LINE */
    v->n++;
}
static void *vec_at(const Vec *v, size_t i) { return (char *)v->data + i * v->elsize; }
static void vec_free(Vec *v) { free(v->data); }

typedef struct { double x; int k; double y; } Rec;
typedef struct { double x; double y; int k; } Padded;

double f(const double *x, int n) {
    Vec d, r, p;
    vec_init(&d, sizeof(double));
    vec_init(&r, sizeof(Rec));
    vec_init(&p, sizeof(Padded));
    for (int i = 0; i < n; i++) {
        double v = x[i] * x[i];
        vec_push(&d, &v);
        Rec q = {sin(x[i]), i, cos(x[i])};
        vec_push(&r, &q);
        Padded w = {x[i] * 0.5, exp(0.1 * x[i]), i % 3};
        vec_push(&p, &w);
    }
    double s = 0;
    for (size_t i = 0; i < d.n; i++) {
        const Rec *q = vec_at(&r, i);
        const Padded *w = vec_at(&p, d.n - 1 - i);
        s += *(const double *)vec_at(&d, i) * q->x + q->k * q->y + w->x * w->y * (w->k + 1);
    }
    vec_free(&d);
    vec_free(&r);
    vec_free(&p);
    return s;
}

int main(void) {
    enum { N = 7 };
    double x[N] = {0.3, -1.2, 0.7, 2.0, -0.4, 0.9, 1.1}, dx[N] = {0}, h = 1e-6;
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
