// Heap blocks that come from allocation wrappers the optimizer does not inline: an
// `xmalloc` that checks for NULL, and an allocator hook called through a function
// pointer in a mutable global (a library's configurable allocator). The caller
// stores active data there, so the wrapper's derivative must return the block's
// shadow, although no argument of the wrapper is active (the size is a constant).
// Before, enzcc stopped with "memory the AD cannot shadow".
// tol: rel=1e-12 abs=1e-14
// grads: 6
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

__attribute__((noinline)) void *xmalloc(size_t bytes) {
    void *p = malloc(bytes);
    if (!p) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    return p;
}

struct allocator {
    int count;
    void *(*alloc)(size_t);
    void (*release)(void *);
} hooks = {0, malloc, free};

__attribute__((noinline)) void *hook_alloc(size_t bytes) {
    return hooks.alloc(bytes);
}

__attribute__((noinline)) void square_in_place(double *v, int n) {
    for (int i = 0; i < n; i++) v[i] *= v[i];
}

/* sum_i (x + i)^2 sin(x) over 4 entries held in an xmalloc'd scratch buffer */
double through_xmalloc(double x) {
    enum { N = 4 };
    double *s = xmalloc(N * sizeof *s);
    for (int i = 0; i < N; i++) s[i] = x + i;
    square_in_place(s, N);
    double sum = 0;
    for (int i = 0; i < N; i++) sum += s[i] * sin(x);
    free(s);
    return sum;
}

/* x^3 through a block from the allocator hook */
double through_hook(double x) {
    double *m = hook_alloc(sizeof *m);
    *m = x;
    square_in_place(m, 1);
    double y = *m * x;
    hooks.release(m);
    return y;
}

static double d_through_xmalloc(double x) {
    double sum = 0;
    for (int i = 0; i < 4; i++) sum += 2 * (x + i) * sin(x) + (x + i) * (x + i) * cos(x);
    return sum;
}

int main(void) {
    double x = 0.7;
    printf("grad rev_xmalloc %.17g %.17g\n", __enzyme_autodiff((void *)through_xmalloc, x), d_through_xmalloc(x));
    printf("grad fwd_xmalloc %.17g %.17g\n", __enzyme_fwddiff((void *)through_xmalloc, x, 1.0),
           d_through_xmalloc(x));
    printf("grad rev_hook %.17g %.17g\n", __enzyme_autodiff((void *)through_hook, x), 3 * x * x);
    printf("grad fwd_hook %.17g %.17g\n", __enzyme_fwddiff((void *)through_hook, x, 1.0), 3 * x * x);
    x = -1.3;
    printf("grad rev_xmalloc2 %.17g %.17g\n", __enzyme_autodiff((void *)through_xmalloc, x), d_through_xmalloc(x));
    printf("grad rev_hook2 %.17g %.17g\n", __enzyme_autodiff((void *)through_hook, x), 3 * x * x);
    return 0;
}
