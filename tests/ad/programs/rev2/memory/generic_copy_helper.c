// A generic `void *` copy helper (memcpy of a byte count its callers pass) moving a
// struct with doubles, a char array, a flag and padding: the length is known only at
// run time, at most the struct. Type analysis types the bytes the copy can reach from
// what the helper's one caller does with the struct, and the reverse pass moves the
// adjoints of the doubles the length covers (a length ending inside a double stops
// the program: tests/ad/test_partial_copies.py). This was "cannot deduce the type
// of the memory copied (at most 32 bytes)"; ClangEnzyme-19 differentiates it.
// Reference: analytic. whole: f = x*y*2 + x; first 16 bytes: f = x (y, on stay 0)
// tol: rel=1e-12 abs=1e-12
// grads: 4
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);

struct Particle { double x; char tag[3]; double y; _Bool on; };

__attribute__((noinline)) static void copy_bytes(void *to, const void *from, size_t n) {
    memcpy(to, from, n);
}

__attribute__((noinline)) double f(const struct Particle *p, long n) {
    struct Particle *h = malloc(sizeof *h);
    memset(h, 0, sizeof *h);
    copy_bytes(h, p, n);
    double r = h->x * h->y * (h->on ? 2.0 : 1.0) + h->x;
    free(h);
    return r;
}

int main(int argc, char **argv) {
    long first = argc > 1 ? atol(argv[1]) : 16;  /* bytes of the second call; 20 ends inside y */
    struct Particle p = {1.5, "ab", -2.0, 1}, dp;
    memset(&dp, 0, sizeof dp);
    __enzyme_autodiff((void *)f, enzyme_dup, &p, &dp, enzyme_const, (long)sizeof p);
    printf("grad whole.x %.17g %.17g\n", dp.x, 2 * p.y + 1);
    printf("grad whole.y %.17g %.17g\n", dp.y, 2 * p.x);
    fflush(stdout);  /* before a run-time check may stop the next call */
    memset(&dp, 0, sizeof dp);
    __enzyme_autodiff((void *)f, enzyme_dup, &p, &dp, enzyme_const, first);
    printf("grad first.x %.17g %.17g\n", dp.x, 1.0);
    printf("grad first.y %.17g %.17g\n", dp.y, 0.0);
    return 0;
}
