// memmove/memcpy over objects that hold doubles and integers in separate ranges: a
// struct with a double array, an int array and a double, shifted in place at a
// run-time offset (as an argument and as a local), an array of structs
// {double, int, float} shifted by a run-time count, and a whole struct copied.
// Type analysis folds a variable index over the whole object, so every offset looked
// conflicting ("conflicting types"); the type the copy's pointers index with says
// which range it walks. Central differences.
// tol: rel=1e-6 abs=1e-9
// grads: 16
#include <stdio.h>
#include <string.h>

extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);

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

int main(void) {
    struct Point p = {{{1.5, -2.0, 0.5, 3.0}, {0, 1, 2, 3}, 0.75},
                      {{1.25, 2, 0.5f}, {-0.5, 0, 1.5f}, {2.0, 1, -1.0f}},
                      {0.3, -0.7, 1.1, 0.9, 0.6}};
    struct Point w = p, d;
    memset(&d, 0, sizeof d);
    __enzyme_autodiff((void *)f, enzyme_dup, &w.b, &d.b, enzyme_dup, w.r, d.r, enzyme_dup, w.x, d.x,
                      enzyme_const, 1);
    const double h = 1e-6;
    double *values[16], *grads[16];
    int n = 0;
    for (int k = 0; k < 4; k++) { values[n] = &p.b.vals[k]; grads[n++] = &d.b.vals[k]; }
    values[n] = &p.b.w; grads[n++] = &d.b.w;
    for (int k = 0; k < 3; k++) { values[n] = &p.r[k].v; grads[n++] = &d.r[k].v; }
    for (int k = 0; k < 5; k++) { values[n] = &p.x[k]; grads[n++] = &d.x[k]; }
    for (int k = 0; k < n; k++) {
        double keep = *values[k];
        *values[k] = keep + h;
        double up = eval(&p);
        *values[k] = keep - h;
        double dn = eval(&p);
        *values[k] = keep;
        printf("grad d%d %.17g %.17g\n", k, *grads[k], (up - dn) / (2 * h));
    }
    /* the float fields' derivatives: r[k].f, by central differences on the float */
    for (int k = 0; k < 3; k++) {
        const float hf = 1.0f / 1024;
        float keep = p.r[k].f;
        p.r[k].f = keep + hf;
        double up = eval(&p);
        p.r[k].f = keep - hf;
        double dn = eval(&p);
        p.r[k].f = keep;
        printf("grad df%d %.17g %.17g\n", k, (double)d.r[k].f, (up - dn) / (2.0 * hf));
    }
    return 0;
}
