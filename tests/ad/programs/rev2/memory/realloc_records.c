// Dynamic arrays of records grown with realloc (p = realloc(p, cap * sizeof *p)),
// the usual way C code collects results of unknown count. The reverse of a realloc
// moves the adjoints of the kept bytes back to the old block; with records of a
// double and an int, or a float and a double, the block is not one repeated type,
// and each was "cannot deduce the element type of memory moved by realloc". The
// program indexes the block as an array of one struct (getelementptr %struct.Obs)
// and every size is a whole number of them, so the block holds such records.
// ClangEnzyme-19 differentiates this program.
// Reference: analytic.
//   f = sum_i (x_i^2 (i+1)) + sum_i sin(x_i) (i/2) + sum_i (x_i * i * 0.25)
// tol: rel=1e-12 abs=1e-12
// grads: 9
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);

struct Obs { double x; int id; };        /* 4 bytes of padding at the end */
struct Pair { float scale; double v; };  /* 4 bytes of padding in the middle */
struct Two { double x, w; };             /* one repeated type */

__attribute__((noinline)) double f(const double *a, int n) {
    struct Obs *obs = NULL;
    struct Pair *pairs = NULL;
    struct Two *two = NULL;
    int cap = 0, len = 0;
    for (int i = 0; i < n; i++) {
        if (len == cap) {
            cap = cap ? 2 * cap : 1;
            obs = realloc(obs, cap * sizeof *obs);
            pairs = realloc(pairs, cap * sizeof *pairs);
            two = realloc(two, cap * sizeof *two);
        }
        obs[len].x = a[i];
        obs[len].id = i;
        pairs[len].scale = 0.25f * (float)i;
        pairs[len].v = a[i];
        two[len].x = a[i];
        two[len].w = 0.5 * i;
        len++;
    }
    double s = 0;
    for (int i = 0; i < len; i++)
        s += obs[i].x * obs[i].x * (obs[i].id + 1) + sin(two[i].x) * two[i].w + pairs[i].v * pairs[i].scale;
    free(obs);
    free(pairs);
    free(two);
    return s;
}

int main(void) {
    enum { n = 9 };
    double a[n], da[n] = {0};
    for (int i = 0; i < n; i++)
        a[i] = 0.3 + 0.1 * i;
    __enzyme_autodiff((void *)f, enzyme_dup, a, da, enzyme_const, n);
    for (int i = 0; i < n; i++)
        printf("grad a[%d] %.17g %.17g\n", i, da[i], 2 * a[i] * (i + 1) + cos(a[i]) * 0.5 * i + 0.25 * i);
    return 0;
}
