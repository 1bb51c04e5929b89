// Forward mode (one direction, and enzyme_width 2) with memmove/memcpy over objects
// that hold doubles and integers in separate ranges: a
// struct with a double array, an int array and a double, shifted in place at a
// run-time offset (as an argument and as a local), an array of structs
// {double, int, float} shifted by a run-time count, and a whole struct copied.
// Type analysis folds a variable index over the whole object, so every offset looked
// conflicting ("conflicting types"); the type the copy's pointers index with says
// which range it walks; forward mode copies the shadows' bytes. Central differences
// along the directions.
// tol: rel=1e-6 abs=1e-9
// grads: 4
#include <stdio.h>
#include <string.h>

extern int enzyme_dup, enzyme_const;
double __enzyme_fwddiff(void *, ...);
typedef struct { double d[2]; } Two;
Two __enzyme_fwddiff2(void *, ...) __asm__("__enzyme_fwddiff");
extern int enzyme_width;

struct Buf { double vals[4]; int counts[4]; double w; };
struct Rec { double v; int id; float f; };

double f(struct Buf *b, struct Rec *r, const double *x, int i) {
    memmove(&b->vals[i + 1], &b->vals[i], (3 - i) * sizeof(double));
    memmove(&b->counts[i + 1], &b->counts[i], (3 - i) * sizeof(int));
    struct Buf local;
    for (int k = 0; k < 4; k++) { local.vals[k] = x[k] * x[k]; local.counts[k] = 3 - k; }
    local.w = x[4];
    memmove(&local.vals[i], &local.vals[i + 1], (3 - i) * sizeof(double));
    memmove(&local.counts[i], &local.counts[i + 1], (3 - i) * sizeof(int));
    struct Buf copy;
    memcpy(&copy, &local, sizeof copy);
    memmove(&r[i + 1], &r[i], (2 - i) * sizeof *r);
    double s = 0;
    for (int k = 0; k < 4; k++) {
        s += b->vals[k] * b->vals[k] * (b->counts[k] + 1);
        s += copy.vals[k] * (copy.counts[k] + 2) * b->w;
    }
    for (int k = 0; k < 3; k++) s += r[k].v * r[k].f * (r[k].id + 1);
    return s * copy.w;
}

struct Point { struct Buf b; struct Rec r[3]; double x[5]; };

static double eval(const struct Point *p) {
    struct Point c = *p;
    return f(&c.b, c.r, c.x, 1);
}

static void direction(struct Point *d, double scale) {
    memset(d, 0, sizeof *d);
    for (int k = 0; k < 4; k++) d->b.vals[k] = scale * (0.5 - 0.25 * k);
    d->b.w = 0.3 * scale;
    for (int k = 0; k < 3; k++) { d->r[k].v = scale * (k - 1); d->r[k].f = (float)(0.5 * scale * k); }
    for (int k = 0; k < 5; k++) d->x[k] = scale * (1 - 0.3 * k);
}

static double along(const struct Point *p, const struct Point *d) {
    const double h = 1e-6;
    struct Point up = *p, dn = *p;
    for (int k = 0; k < 4; k++) { up.b.vals[k] += h * d->b.vals[k]; dn.b.vals[k] -= h * d->b.vals[k]; }
    up.b.w += h * d->b.w;
    dn.b.w -= h * d->b.w;
    for (int k = 0; k < 3; k++) {
        up.r[k].v += h * d->r[k].v;
        dn.r[k].v -= h * d->r[k].v;
    }
    for (int k = 0; k < 5; k++) { up.x[k] += h * d->x[k]; dn.x[k] -= h * d->x[k]; }
    return (eval(&up) - eval(&dn)) / (2 * h);
}

int main(void) {
    struct Point p = {{{1.5, -2.0, 0.5, 3.0}, {0, 1, 2, 3}, 0.75},
                      {{1.25, 2, 0.5f}, {-0.5, 0, 1.5f}, {2.0, 1, -1.0f}},
                      {0.3, -0.7, 1.1, 0.9, 0.6}};
    /* the float fields keep a zero tangent here: their finite differences need a float step */
    struct Point w = p, d;
    direction(&d, 1.0);
    for (int k = 0; k < 3; k++) d.r[k].f = 0;
    struct Point d0 = d;
    double t = __enzyme_fwddiff((void *)f, enzyme_dup, &w.b, &d.b, enzyme_dup, w.r, d.r, enzyme_dup, w.x, d.x,
                                enzyme_const, 1);
    printf("grad tangent %.17g %.17g\n", t, along(&p, &d0));
    struct Point w2 = p, e0, e1;
    direction(&e0, 1.0);
    direction(&e1, -0.5);
    for (int k = 0; k < 3; k++) e0.r[k].f = e1.r[k].f = 0;
    struct Point c0 = e0, c1 = e1;
    Two two = __enzyme_fwddiff2((void *)f, enzyme_width, 2, enzyme_dup, &w2.b, &e0.b, &e1.b, enzyme_dup, w2.r,
                                e0.r, e1.r, enzyme_dup, w2.x, e0.x, e1.x, enzyme_const, 1);
    printf("grad width0 %.17g %.17g\n", two.d[0], along(&p, &c0));
    printf("grad width1 %.17g %.17g\n", two.d[1], along(&p, &c1));
    /* the tangents moved with the values: b.vals shifted up from index 1 */
    printf("grad moved %.17g %.17g\n", d.b.vals[2] + 10 * d.b.vals[3], d0.b.vals[1] + 10 * d0.b.vals[2]);
    return 0;
}
