// Active memory overwritten by constants that clang stores as integers: memset of
// one double (`store i64 0`), a double or float copied from a constant table
// (`store i64 <bits>` / `store i32 <bits>`), a struct {float, int} assigned a
// constant (`store i64` of mixed bits), memset in a loop. The overwritten values are
// read back through an index the optimizer cannot see, so the adjoints that reach
// the overwritten slots must be dropped (not leak into the initial values'
// gradients). Analytic gradients.
// tol: rel=1e-12 abs=1e-12
// grads: 12
#include <stdio.h>
#include <string.h>

extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);

struct FI { float v; int id; };
struct DL { double v; long id; };
static const double TD[4] = {1.5, -0.75, 2.25, 3.0};
static const float TF[2] = {0.5f, -1.25f};
static const struct FI CFI = {1.5f, 7};

void f(double *x, float *z, struct FI *s, struct DL *t, double *w, int n, int k, double *out) {
    double a = x[0] * x[1] + x[2] * x[2] + z[0] * z[1] + s->v * s->v + t->v * t->v;
    for (int i = 0; i < n; i++) a += w[i] * w[i] * (i + 1);
    memset(&x[0], 0, sizeof(double));        /* x0 = 0 */
    memcpy(&x[1], &TD[2], sizeof(double));   /* x1 = 2.25 */
    memmove(&x[2], &TD[k], sizeof(double));  /* x2 = TD[k] */
    memcpy(&z[1], &TF[1], sizeof(float));    /* z1 = -1.25f */
    *s = CFI;                                /* s = {1.5f, 7} */
    memset(t, 0, sizeof *t);                 /* t = {0, 0} */
    for (int i = 0; i < n; i += 2) memset(&w[i], 0, sizeof(double)); /* even w = 0 */
    double r = a + 3 * x[k] + 5 * x[k + 1] + 7 * x[k + 2] + 11 * z[k + 1] * z[k]
             + 13 * s[k].v * s[k].id + 17 * t[k].v;
    for (int i = 0; i < n; i++) r += 19 * w[k + i] * (i + 2);
    *out = r;
}

int main(void) {
    enum { N = 4 };
    double x[3] = {0.7, -1.3, 0.4}, dx[3] = {0};
    float z[2] = {2.0f, 3.0f}, dz[2] = {0};
    struct FI s = {4.0f, 1}, ds = {0};
    struct DL t = {-0.6, 3}, dt = {0};
    double w[N] = {0.3, -0.8, 1.1, 0.25}, dw[N] = {0};
    double x0[3], w0[N];
    memcpy(x0, x, sizeof x);
    memcpy(w0, w, sizeof w);
    float z0 = z[0], z1 = z[1], sv = s.v;
    double tv = t.v;
    double out = 0, dout = 1;
    __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_dup, z, dz, enzyme_dup, &s, &ds, enzyme_dup, &t, &dt,
                      enzyme_dup, w, dw, enzyme_const, N, enzyme_const, 0, enzyme_dup, &out, &dout);
    printf("grad dx0 %.17g %.17g\n", dx[0], x0[1]);
    printf("grad dx1 %.17g %.17g\n", dx[1], x0[0]);
    printf("grad dx2 %.17g %.17g\n", dx[2], 2 * x0[2]);
    printf("grad dz0 %.17g %.17g\n", (double)dz[0], (double)z1 + 11 * -1.25);
    printf("grad dz1 %.17g %.17g\n", (double)dz[1], (double)z0);
    printf("grad ds.v %.17g %.17g\n", (double)ds.v, 2.0 * sv);
    printf("grad dt.v %.17g %.17g\n", dt.v, 2 * tv);
    for (int i = 0; i < N; i++) {
        double e = 2 * w0[i] * (i + 1) + (i % 2 ? 19.0 * (i + 2) : 0.0);
        printf("grad dw%d %.17g %.17g\n", i, dw[i], e);
    }
    double r = x0[0] * x0[1] + x0[2] * x0[2] + z0 * z1 + sv * sv + tv * tv;
    for (int i = 0; i < N; i++) r += w0[i] * w0[i] * (i + 1) + (i % 2 ? 19 * w0[i] * (i + 2) : 0);
    r += 5 * 2.25 + 7 * 1.5 + 11 * -1.25 * z0 + 13 * 1.5 * 7;
    printf("grad out %.17g %.17g\n", out, r);
    return 0;
}
