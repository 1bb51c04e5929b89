// One struct holding arrays of structs of floating and integer fields (and a double
// array), elements copied and swapped whole at run-time indices: clang moves a
// {float, int} or {float, float} as one i64 and copies a {double, long, double} with
// memcpy, a double swapped through memcpy, an array of
// structs sorted by its integer key with struct swaps, a struct chosen by a condition.
// Each integer move of mixed bytes must carry the float fields' derivatives and keep
// the integer fields. f is at most quadratic in each input and all values are dyadic,
// so central differences with a dyadic step are exact (up to the float rounding of the
// float fields' sums).
// tol: rel=1e-9 abs=1e-9
// grads: 21
#include <stdio.h>
#include <string.h>

extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);

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

int main(void) {
    struct In in = {{{1.5f, 0}, {2.25f, 1}, {-0.75f, 2}},
                    {{1.0f, 2.5f}, {3.0f, -4.0f}, {0.5f, 6.0f}},
                    {{1.0, 0, 2.0}, {2.5, 5, -3.0}, {-1.5, 2, 4.0}},
                    {1.0, 2.5, -3.0, 4.0}};
    struct In d, work = in;
    memset(&d, 0, sizeof d);
    __enzyme_autodiff((void *)f, enzyme_dup, &work, &d, enzyme_const, 2);
    const float h = 1.0f / 1024;
    for (int i = 0; i < 3; i++) {
        struct In up = in, dn = in;
        up.p[i].v += h; dn.p[i].v -= h;
        printf("grad p[%d].v %.17g %.17g\n", i, (double)d.p[i].v, (eval(&up) - eval(&dn)) / (2.0 * h));
        up = in; dn = in;
        up.q[i].a += h; dn.q[i].a -= h;
        printf("grad q[%d].a %.17g %.17g\n", i, (double)d.q[i].a, (eval(&up) - eval(&dn)) / (2.0 * h));
        up = in; dn = in;
        up.q[i].b += h; dn.q[i].b -= h;
        printf("grad q[%d].b %.17g %.17g\n", i, (double)d.q[i].b, (eval(&up) - eval(&dn)) / (2.0 * h));
        up = in; dn = in;
        up.r[i].v += h; dn.r[i].v -= h;
        printf("grad r[%d].v %.17g %.17g\n", i, d.r[i].v, (eval(&up) - eval(&dn)) / (2.0 * h));
        up = in; dn = in;
        up.r[i].w += h; dn.r[i].w -= h;
        printf("grad r[%d].w %.17g %.17g\n", i, d.r[i].w, (eval(&up) - eval(&dn)) / (2.0 * h));
    }
    for (int i = 0; i < 4; i++) {
        struct In up = in, dn = in;
        up.x[i] += h; dn.x[i] -= h;
        printf("grad x[%d] %.17g %.17g\n", i, d.x[i], (eval(&up) - eval(&dn)) / (2.0 * h));
    }
    /* the integer fields moved with the floats: p swapped 0 <-> 2, r sorted by id */
    printf("grad p.ids %d %d\n", work.p[0].id * 100 + work.p[1].id * 10 + work.p[2].id, 210);
    printf("grad r.ids %d %d\n", (int)(work.r[0].id * 100 + work.r[1].id * 10 + work.r[2].id), 520);
    return 0;
}
