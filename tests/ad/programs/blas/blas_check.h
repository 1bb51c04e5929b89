/* Shared by the BLAS gradient programs: test data, central differences, `grad` lines.
 *
 * Every loss is a polynomial of degree <= 3 in any one input (BLAS is multilinear),
 * so a central difference has no truncation error of order h^2 beyond rounding:
 * the references agree with an exact derivative to ~1e-9 here (h = 1e-6). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern int enzyme_dup, enzyme_dupnoneed, enzyme_const, enzyme_out, enzyme_width;

static void fill(double *x, int n, double seed) {
    for (int i = 0; i < n; i++)
        x[i] = sin(seed + 0.37 * i) + 0.25 * cos(3.1 * seed * (i + 1));
}

/* d ev / d x at the current point, by central differences */
static double central(double (*ev)(void), double *x) {
    double h = 1e-6, saved = *x;
    *x = saved + h;
    double up = ev();
    *x = saved - h;
    double down = ev();
    *x = saved;
    return (up - down) / (2 * h);
}

/* d ev(x + t v) / dt at t = 0 */
static double central_dir(double (*ev)(void), double *x, const double *v, int n) {
    double h = 1e-6;
    double *saved = malloc(sizeof(double) * (size_t)n);
    memcpy(saved, x, sizeof(double) * (size_t)n);
    for (int i = 0; i < n; i++) x[i] = saved[i] + h * v[i];
    double up = ev();
    for (int i = 0; i < n; i++) x[i] = saved[i] - h * v[i];
    double down = ev();
    memcpy(x, saved, sizeof(double) * (size_t)n);
    free(saved);
    return (up - down) / (2 * h);
}

static void grad(const char *tag, const char *name, int i, double ad, double ref) {
    printf("grad %s.%s[%d] %.17g %.17g\n", tag, name, i, ad, ref);
}

/* one `grad` line per element: the AD adjoint against d ev / d x[i] */
static void check_array(const char *tag, const char *name, double (*ev)(void), double *x,
                        const double *ad, int n) {
    for (int i = 0; i < n; i++) grad(tag, name, i, ad[i], central(ev, &x[i]));
}
