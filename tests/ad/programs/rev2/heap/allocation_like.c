// A user's allocator registered with __enzyme_allocation_like (Enzyme's interface):
// a bump allocator over a static arena that computes addresses on integers
// (uintptr_t), which the AD could not follow through its body. Registered, its calls
// are heap allocations of the given size argument: the derivative makes the shadow
// blocks itself and never differentiates the allocator. Reverse and forward mode,
// -O0 and -O2, analytic derivatives.
// tol: rel=1e-12 abs=1e-14
// grads: 4
#include <math.h>
#include <stdint.h>
#include <stdio.h>

double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

static _Alignas(16) unsigned char arena[1 << 16];
static size_t used;

__attribute__((noinline)) void *bump_alloc(void *base, size_t bytes, size_t *offset) {
    uintptr_t at = (uintptr_t)base + *offset;
    *offset += (bytes + 15) & ~(size_t)15;
    return (void *)at;
}

__attribute__((noinline)) void bump_free(size_t *offset, void *block) {
    (void)offset;
    (void)block; /* a bump allocator frees everything at once */
}

void *__enzyme_allocation_like[4] = {(void *)bump_alloc, (void *)1, (void *)"2,-1", (void *)bump_free};

/* sum_i sin(x * (i + 1))^2 through two arena blocks */
double f(double x) {
    enum { N = 5 };
    double *a = bump_alloc(arena, N * sizeof *a, &used);
    double *b = bump_alloc(arena, N * sizeof *b, &used);
    for (int i = 0; i < N; i++) a[i] = sin(x * (i + 1));
    for (int i = 0; i < N; i++) b[i] = a[i] * a[i];
    double s = 0;
    for (int i = 0; i < N; i++) s += b[i];
    bump_free(&used, b);
    bump_free(&used, a);
    return s;
}

static double df(double x) {
    double s = 0;
    for (int i = 0; i < 5; i++) s += 2 * sin(x * (i + 1)) * cos(x * (i + 1)) * (i + 1);
    return s;
}

int main(void) {
    double xs[2] = {0.3, -1.1};
    for (int k = 0; k < 2; k++) {
        used = 0;
        printf("grad rev%d %.17g %.17g\n", k, __enzyme_autodiff((void *)f, xs[k]), df(xs[k]));
        used = 0;
        printf("grad fwd%d %.17g %.17g\n", k, __enzyme_fwddiff((void *)f, xs[k], 1.0), df(xs[k]));
    }
    return 0;
}
