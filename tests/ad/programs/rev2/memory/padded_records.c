// Records with padding between and after their members (an int before a double, a
// float before a double, a nested record's tail), copied whole: by assignment into
// the heap, by memcpy of one record and of n records, into a local array at run-time
// indices, and by value through a helper. The padding bytes are typed by nothing;
// the copies were refused ("cannot deduce the type of the memory copied") until
// the TBAA layout of the record (and the type the copy is indexed with) showed them
// to be padding. ClangEnzyme-19 differentiates this program at -O2 (at -O0 it cannot
// deduce the type of one copy).
// Reference: analytic.
//   f_assign = a*b*n + p.in.x * p.y * p.in.k + q.f * q.d      (one record each)
//   f_many   = sum_i a_i*b_i*n_i ;  f_scatter = sum_i a_i*b_i ;  f_value = (2a)*(3b)
// tol: rel=1e-12 abs=1e-12
// grads: 22
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);

struct S { double a; int n; double b; int m; };               /* padding at 12 and 28 */
struct Inner { double x; int k; };                            /* tail padding at 12 */
struct Outer { struct Inner in; double y; short m; };          /* and at 26 */
struct FD { float f; double d; };                             /* padding at 4 */

__attribute__((noinline)) double f_assign(const struct S *s, const struct Outer *o, const struct FD *q) {
    struct S *h = malloc(sizeof *h);
    struct Outer *p = malloc(sizeof *p);
    struct FD *r = malloc(sizeof *r);
    *h = *s;
    *p = *o;
    *r = *q;
    double v = h->a * h->b * h->n + p->in.x * p->y * p->in.k + r->f * r->d;
    free(h), free(p), free(r);
    return v;
}

__attribute__((noinline)) double f_one(const struct S *s) {
    struct S *h = malloc(sizeof *h);
    memcpy(h, s, sizeof *h);
    double v = h->a * h->b * h->n;
    free(h);
    return v;
}

__attribute__((noinline)) double f_many(const struct S *s, int n) {
    struct S *h = malloc(n * sizeof *h);
    memcpy(h, s, n * sizeof *h);
    double v = 0;
    for (int i = 0; i < n; i++)
        v += h[i].a * h[i].b * h[i].n;
    free(h);
    return v;
}

__attribute__((noinline)) double f_scatter(const struct S *s, int n) {
    struct S slots[8];
    for (int i = 0; i < n; i++)
        slots[(3 * i) % 8] = s[i];
    double v = 0;
    for (int i = 0; i < n; i++)
        v += slots[(3 * i) % 8].a * slots[(3 * i) % 8].b;
    return v;
}

static struct S scaled(struct S s) {
    s.a *= 2;
    s.b *= 3;
    return s;
}

__attribute__((noinline)) double f_value(const struct S *s) {
    struct S t = scaled(*s);
    return t.a * t.b;
}

static void clear(struct S *ds, int n) { memset(ds, 0, n * sizeof *ds); }

int main(void) {
    struct S s[3] = {{1.5, 3, 2.0, 7}, {0.5, 2, 4.0, 8}, {2.5, 1, 3.0, 9}}, ds[3];
    struct Outer o = {{1.25, 4}, 0.75, 5}, dout;
    struct FD q = {2.5f, 1.75}, dq;
    clear(ds, 3);
    memset(&dout, 0, sizeof dout);
    memset(&dq, 0, sizeof dq);
    __enzyme_autodiff((void *)f_assign, enzyme_dup, s, ds, enzyme_dup, &o, &dout, enzyme_dup, &q, &dq);
    printf("grad assign.a %.17g %.17g\n", ds[0].a, s[0].b * s[0].n);
    printf("grad assign.b %.17g %.17g\n", ds[0].b, s[0].a * s[0].n);
    printf("grad assign.in.x %.17g %.17g\n", dout.in.x, o.y * o.in.k);
    printf("grad assign.y %.17g %.17g\n", dout.y, o.in.x * o.in.k);
    printf("grad assign.f %.17g %.17g\n", (double)dq.f, q.d);
    printf("grad assign.d %.17g %.17g\n", dq.d, (double)q.f);

    clear(ds, 3);
    __enzyme_autodiff((void *)f_one, enzyme_dup, s, ds);
    printf("grad one.a %.17g %.17g\n", ds[0].a, s[0].b * s[0].n);
    printf("grad one.b %.17g %.17g\n", ds[0].b, s[0].a * s[0].n);

    clear(ds, 3);
    __enzyme_autodiff((void *)f_many, enzyme_dup, s, ds, enzyme_const, 3);
    for (int i = 0; i < 3; i++) {
        printf("grad many.a[%d] %.17g %.17g\n", i, ds[i].a, s[i].b * s[i].n);
        printf("grad many.b[%d] %.17g %.17g\n", i, ds[i].b, s[i].a * s[i].n);
    }

    clear(ds, 3);
    __enzyme_autodiff((void *)f_scatter, enzyme_dup, s, ds, enzyme_const, 3);
    for (int i = 0; i < 3; i++) {
        printf("grad scatter.a[%d] %.17g %.17g\n", i, ds[i].a, s[i].b);
        printf("grad scatter.b[%d] %.17g %.17g\n", i, ds[i].b, s[i].a);
    }

    clear(ds, 3);
    __enzyme_autodiff((void *)f_value, enzyme_dup, s, ds);
    printf("grad value.a %.17g %.17g\n", ds[0].a, 6 * s[0].b);
    printf("grad value.b %.17g %.17g\n", ds[0].b, 6 * s[0].a);
    return 0;
}
