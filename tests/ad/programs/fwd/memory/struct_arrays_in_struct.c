// Forward mode over one struct holding arrays of structs of floating and integer
// fields (and a double array), elements copied and swapped whole at run-time indices
// (clang moves a {float, int} or {float, float} as one i64, copies a {double, long,
// double} with memcpy), a double swapped through memcpy, an array of structs sorted by
// its integer key, a struct chosen by a condition. The tangent of the result is
// checked along one direction against central differences (f is quadratic along any
// line and the values are dyadic, so they are exact up to rounding), and the tangents
// left in memory against the same moves applied to the direction itself (f only moves
// data in place, so the moved tangents are the moved direction).
// tol: rel=1e-9 abs=1e-9
// grads: 19
#include <stdio.h>
#include <string.h>

extern int enzyme_dup, enzyme_const;
double __enzyme_fwddiff(void *, ...);

struct FI { float v; int id; };
struct FF { float a, b; };
struct DL { double v; long id; double w; };
struct In { struct FI p[3]; struct FF q[3]; struct DL r[3]; double x[4]; };

static void swap_fi(struct FI *a, struct FI *b) { struct FI t = *a; *a = *b; *b = t; }
static void swap_dl(struct DL *a, struct DL *b) { struct DL t = *a; *a = *b; *b = t; }

double f(struct In *in, int n) {
    struct FI *p = in->p;
    struct FF *q = in->q;
    struct DL *r = in->r;
    double *x = in->x;
    swap_fi(&p[0], &p[n]);
    struct FF t = q[0]; q[0] = q[n]; q[n] = t;
    for (int pass = 0; pass < 2; pass++) /* sort r by id, descending */
        for (int i = 1; i < 3; i++)
            if (r[i].id > r[i - 1].id) swap_dl(&r[i], &r[i - 1]);
    double tmp; long bits;
    memcpy(&tmp, &x[0], 8); memcpy(&x[0], &x[n], 8); memcpy(&x[n], &tmp, 8);
    (void)bits;
    struct FI pick = p[1].id > p[2].id ? p[1] : p[2];
    double s = pick.v * pick.v * pick.id;
    for (int i = 0; i < 3; i++)
        s += p[i].v * (p[i].id + 1) + q[i].a * q[i].b * (i + 1) + r[i].v * r[i].w * (i + 2) + r[i].id;
    return s + 2 * x[0] + x[1] * x[3] + 5 * x[n] * x[n];
}

static double eval(const struct In *in) {
    struct In c = *in;
    return f(&c, 2);
}

static void step(struct In *out, const struct In *in, const struct In *dir, double h) {
    *out = *in;
    for (int i = 0; i < 3; i++) {
        out->p[i].v += (float)(h * dir->p[i].v);
        out->q[i].a += (float)(h * dir->q[i].a);
        out->q[i].b += (float)(h * dir->q[i].b);
        out->r[i].v += h * dir->r[i].v;
        out->r[i].w += h * dir->r[i].w;
    }
    for (int i = 0; i < 4; i++) out->x[i] += h * dir->x[i];
}

int main(void) {
    struct In in = {{{1.5f, 0}, {2.25f, 1}, {-0.75f, 2}},
                    {{1.0f, 2.5f}, {3.0f, -4.0f}, {0.5f, 6.0f}},
                    {{1.0, 0, 2.0}, {2.5, 5, -3.0}, {-1.5, 2, 4.0}},
                    {1.0, 2.5, -3.0, 4.0}};
    struct In dir = {{{0.5f, 0}, {-1.0f, 1}, {2.0f, 2}},
                     {{1.5f, -0.5f}, {0.25f, 1.0f}, {-2.0f, 0.75f}},
                     {{0.5, 0, -1.0}, {1.5, 5, 0.25}, {-0.5, 2, 2.0}},
                     {0.5, -1.5, 0.25, 2.0}};
    struct In work = in, d = dir;
    double t = __enzyme_fwddiff((void *)f, enzyme_dup, &work, &d, enzyme_const, 2);
    const double h = 1.0 / 1024;
    struct In up, dn;
    step(&up, &in, &dir, h);
    step(&dn, &in, &dir, -h);
    printf("grad tangent %.17g %.17g\n", t, (eval(&up) - eval(&dn)) / (2 * h));
    struct In moved = dir; /* the same moves applied to the direction */
    f(&moved, 2);
    for (int i = 0; i < 3; i++) {
        printf("grad d.p[%d].v %.17g %.17g\n", i, (double)d.p[i].v, (double)moved.p[i].v);
        printf("grad d.q[%d].a %.17g %.17g\n", i, (double)d.q[i].a, (double)moved.q[i].a);
        printf("grad d.q[%d].b %.17g %.17g\n", i, (double)d.q[i].b, (double)moved.q[i].b);
        printf("grad d.r[%d] %.17g %.17g\n", i, d.r[i].v + 10 * d.r[i].w, moved.r[i].v + 10 * moved.r[i].w);
    }
    for (int i = 0; i < 4; i++) printf("grad d.x[%d] %.17g %.17g\n", i, d.x[i], moved.x[i]);
    printf("grad p.ids %d %d\n", work.p[0].id * 100 + work.p[1].id * 10 + work.p[2].id, 210);
    printf("grad r.ids %d %d\n", (int)(work.r[0].id * 100 + work.r[1].id * 10 + work.r[2].id), 520);
    return 0;
}
