// Forward mode (one tangent, and enzyme_width 2) over active memory overwritten by
// constants that clang stores as integers: memset of one double (`store i64 0`), a
// double or float copied from a constant table (`store i64/i32 <bits>`), a struct
// {float, int} assigned a constant (mixed bits), a struct {double, long} cleared,
// memset in a loop. The tangents of the overwritten slots must be zero afterwards,
// both where the function reads them back and in the shadow the caller sees.
// tol: rel=1e-12 abs=1e-12
// grads: 15
#include <stdio.h>
#include <string.h>

extern int enzyme_dup, enzyme_const, enzyme_width;
void __enzyme_fwddiff(void *, ...);

struct FI { float v; int id; };
struct DL { double v; long id; };
static const double TD[4] = {1.5, -0.75, 2.25, 3.0};
static const float TF[2] = {0.5f, -1.25f};
static const struct FI CFI = {1.5f, 7};

void f(double *x, float *z, struct FI *s, struct DL *t, double *w, int n, int k, double *out) {
    double a = x[0] * x[1] + x[2] * x[2] + z[0] * z[1] + s->v * s->v + t->v * t->v;
    for (int i = 0; i < n; i++) a += w[i] * w[i] * (i + 1);
    memset(&x[0], 0, sizeof(double));
    memcpy(&x[1], &TD[2], sizeof(double));
    memmove(&x[2], &TD[k], sizeof(double));
    memcpy(&z[1], &TF[1], sizeof(float));
    *s = CFI;
    memset(t, 0, sizeof *t);
    for (int i = 0; i < n; i += 2) memset(&w[i], 0, sizeof(double));
    double r = a + 3 * x[k] + 5 * x[k + 1] + 7 * x[k + 2] + 11 * z[k + 1] * z[k]
             + 13 * s[k].v * s[k].id + 17 * t[k].v;
    for (int i = 0; i < n; i++) r += 19 * w[k + i] * (i + 2);
    *out = r;
}

enum { N = 4 };
struct Point { double x[3]; float z[2]; struct FI s; struct DL t; double w[N]; };

static void init(struct Point *p) {
    const struct Point v = {{0.7, -1.3, 0.4}, {2.0f, 3.0f}, {4.0f, 1}, {-0.6, 3}, {0.3, -0.8, 1.1, 0.25}};
    *p = v;
}

static void direction(struct Point *d, double scale) {
    memset(d, 0, sizeof *d);
    for (int i = 0; i < 3; i++) d->x[i] = scale * (i + 1);
    d->z[0] = (float)(0.5 * scale);
    d->z[1] = (float)(-2 * scale);
    d->s.v = (float)(3 * scale);
    d->t.v = -1.5 * scale;
    for (int i = 0; i < N; i++) d->w[i] = scale * (0.25 * i - 0.5);
}

/* the directional derivative of out along d, from the analytic gradient at p */
static double expected(const struct Point *p, const struct Point *d) {
    double g = p->x[1] * d->x[0] + p->x[0] * d->x[1] + 2 * p->x[2] * d->x[2];
    g += ((double)p->z[1] + 11 * -1.25) * d->z[0] + (double)p->z[0] * d->z[1];
    g += 2.0 * p->s.v * d->s.v + 2 * p->t.v * d->t.v;
    for (int i = 0; i < N; i++) g += (2 * p->w[i] * (i + 1) + (i % 2 ? 19.0 * (i + 2) : 0.0)) * d->w[i];
    return g;
}

/* the tangents left in the overwritten slots (all must be zero) */
static double leftover(const struct Point *d) {
    double sum = 0;
    sum += d->x[0] * d->x[0] + d->x[1] * d->x[1] + d->x[2] * d->x[2];
    sum += (double)d->z[1] * d->z[1] + (double)d->s.v * d->s.v + d->t.v * d->t.v;
    for (int i = 0; i < N; i += 2) sum += d->w[i] * d->w[i];
    return sum;
}

int main(void) {
    struct Point p, d;
    double out, dout = 0;
    init(&p);
    direction(&d, 1.0);
    double want = expected(&p, &d);
    __enzyme_fwddiff((void *)f, enzyme_dup, p.x, d.x, enzyme_dup, p.z, d.z, enzyme_dup, &p.s, &d.s,
                     enzyme_dup, &p.t, &d.t, enzyme_dup, p.w, d.w, enzyme_const, N, enzyme_const, 0,
                     enzyme_dup, &out, &dout);
    printf("grad dout %.17g %.17g\n", dout, want);
    printf("grad leftover %.17g 0\n", leftover(&d));
    printf("grad d.w[1] %.17g %.17g\n", d.w[1], 0.25 - 0.5);
    printf("grad d.z[0] %.17g %.17g\n", (double)d.z[0], 0.5);

    struct Point q, e[2];
    double out2, douts[2] = {0, 0};
    init(&q);
    direction(&e[0], 1.0);
    direction(&e[1], -0.5);
    e[1].x[0] = 2.5;
    double want0 = expected(&q, &e[0]), want1 = expected(&q, &e[1]);
    __enzyme_fwddiff((void *)f, enzyme_width, 2, enzyme_dup, q.x, e[0].x, e[1].x, enzyme_dup, q.z, e[0].z,
                     e[1].z, enzyme_dup, &q.s, &e[0].s, &e[1].s, enzyme_dup, &q.t, &e[0].t, &e[1].t,
                     enzyme_dup, q.w, e[0].w, e[1].w, enzyme_const, N, enzyme_const, 0, enzyme_dup, &out2,
                     &douts[0], &douts[1]);
    printf("grad width0 %.17g %.17g\n", douts[0], want0);
    printf("grad width1 %.17g %.17g\n", douts[1], want1);
    printf("grad leftover0 %.17g 0\n", leftover(&e[0]));
    printf("grad leftover1 %.17g 0\n", leftover(&e[1]));
    printf("grad out %.17g %.17g\n", out, out2);
    for (int i = 0; i < 3; i++) printf("grad x[%d] %.17g %.17g\n", i, p.x[i], q.x[i]);
    printf("grad s.id %d %d\n", p.s.id, 7);
    printf("grad t.id %ld %d\n", p.t.id, 0);
    printf("grad z[1] %.17g %.17g\n", (double)p.z[1], -1.25);
    return 0;
}
