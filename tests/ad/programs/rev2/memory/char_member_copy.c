// Records with char members copied by memcpy, which carries no `!tbaa.struct`: a
// one-byte tag, a short name, a flag. In clang's classic TBAA a char, a char array
// and a union are all `omnipotent char` without a size, so the bytes after the tag
// could have held a double; clang's IR declaration of the record
// (%struct.Particle = type { double, i8, [5 x i8], double, i8 }) sizes them, and the
// rest is padding. Each copy was "cannot deduce the type of the memory copied by
// this memcpy (bytes 8 to 16)". ClangEnzyme-19 differentiates this program.
// Reference: analytic.
//   one:  f = x*y*w (w = 2 for tag 'a')      many: f = sum_i x_i^2 * y_i * (name[0] == 'p')
// tol: rel=1e-12 abs=1e-12
// grads: 8
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);

struct Particle { double x; char tag; char name[5]; double y; _Bool on; };

__attribute__((noinline)) void copy_one(struct Particle *to, const struct Particle *from) {
    memcpy(to, from, sizeof *to);
}

__attribute__((noinline)) double one(const struct Particle *p) {
    struct Particle *h = malloc(sizeof *h);
    copy_one(h, p);
    double w = h->tag == 'a' ? 2.0 : 1.0;
    double r = h->x * h->y * w * (h->on ? 1.0 : 0.5);
    free(h);
    return r;
}

__attribute__((noinline)) double many(const struct Particle *p, int n) {
    struct Particle *h = malloc(n * sizeof *h);
    memcpy(h, p, n * sizeof *h);
    double r = 0;
    for (int i = 0; i < n; i++)
        r += h[i].x * h[i].x * h[i].y * (h[i].name[0] == 'p');
    free(h);
    return r;
}

int main(void) {
    struct Particle p[3] = {{1.5, 'a', "pa", 2.0, 1}, {0.5, 'b', "pb", -3.0, 0}, {2.5, 'c', "qc", 0.25, 1}};
    struct Particle dp[3];
    memset(dp, 0, sizeof dp);
    __enzyme_autodiff((void *)one, enzyme_dup, p, dp);
    printf("grad one.x %.17g %.17g\n", dp[0].x, p[0].y * 2.0);
    printf("grad one.y %.17g %.17g\n", dp[0].y, p[0].x * 2.0);
    memset(dp, 0, sizeof dp);
    __enzyme_autodiff((void *)many, enzyme_dup, p, dp, enzyme_const, 3);
    for (int i = 0; i < 3; i++) {
        double on = p[i].name[0] == 'p';
        printf("grad many.x[%d] %.17g %.17g\n", i, dp[i].x, 2 * p[i].x * p[i].y * on);
        printf("grad many.y[%d] %.17g %.17g\n", i, dp[i].y, p[i].x * p[i].x * on);
    }
    return 0;
}
