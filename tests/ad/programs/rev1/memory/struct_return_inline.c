// Small struct returns of inlined helpers (insertvalue/extractvalue, or their
// scalarized form after SROA): complex multiplication and a {value, slope} pair.
// tol: rel=1e-12 abs=1e-14
// grads: 4
#include <math.h>
#include <stdio.h>

extern int enzyme_dup;
double __enzyme_autodiff(void *, ...);

typedef struct { double re, im; } Complex;

static Complex cmul(Complex a, Complex b) {
    Complex r = {a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re};
    return r;
}

typedef struct { double v, s; } VS;
static VS expit(double x) {
    VS r;
    r.v = 1.0 / (1.0 + exp(-x));
    r.s = r.v * (1.0 - r.v);
    return r;
}

double f(const double *in) {
    Complex a = {in[0], in[1]}, b = {in[2], in[3]};
    Complex c = cmul(a, b);
    c = cmul(c, a);
    VS e = expit(c.re);
    return e.v + e.s * c.im;
}

int main(void) {
    double in[4] = {0.3, -0.6, 1.1, 0.4}, d[4] = {0};
    __enzyme_autodiff((void *)f, enzyme_dup, in, d);
    double ar = in[0], ai = in[1], br = in[2], bi = in[3];
    double pr = ar * br - ai * bi, pi = ar * bi + ai * br;          /* p = a b */
    double cr = pr * ar - pi * ai, ci = pr * ai + pi * ar;          /* c = p a */
    double sg = 1 / (1 + exp(-cr)), sp = sg * (1 - sg), spp = sp * (1 - 2 * sg);
    double gcr = sp + spp * ci, gci = sp;                            /* dF/dc */
    /* c = a^2 b: dc/da = 2ab, dc/db = a^2 (complex); d F / d(re, im) of a complex z with
       dc/dz = w: dF/dz_re = gcr w_re + gci w_im, dF/dz_im = -gcr w_im + gci w_re */
    double war = 2 * pr, wai = 2 * pi;                               /* 2ab */
    double wbr = ar * ar - ai * ai, wbi = 2 * ar * ai;               /* a^2 */
    printf("grad d_are %.17g %.17g\n", d[0], gcr * war + gci * wai);
    printf("grad d_aim %.17g %.17g\n", d[1], -gcr * wai + gci * war);
    printf("grad d_bre %.17g %.17g\n", d[2], gcr * wbr + gci * wbi);
    printf("grad d_bim %.17g %.17g\n", d[3], -gcr * wbi + gci * wbr);
    return 0;
}
