// Over-aligned heap blocks made by integer arithmetic on malloc's address, as
// Eigen's handmade_aligned_malloc does whenever its alignment (32 bytes with AVX,
// 64 with AVX-512) exceeds malloc's: the aligned address is `(raw & ~63) + 64`, the
// raw pointer kept just below it for the free; a second allocator rounds up
// (`(raw + 31) & ~31`) and keeps the raw pointer in the record. The aligned
// pointer's shadow is the same arithmetic on the shadow block's address
// (`analysis/integer_addresses.py`); it was "a pointer without a shadow is stored
// into differentiable memory". Reverse and forward mode, the allocations in noinline
// helpers and inline.
// Reference: central finite differences.
// tol: rel=1e-6 abs=1e-8
// grads: 12
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

#define N 6

static void *aligned_malloc(size_t bytes) {
    void *raw = malloc(bytes + 64);
    if (!raw) abort();
    void *aligned = (void *)(((uintptr_t)raw & ~(uintptr_t)63) + 64);
    ((void **)aligned)[-1] = raw;
    return aligned;
}

static void aligned_free(void *p) { free(((void **)p)[-1]); }

typedef struct { double *data; long n; } Vec;
typedef struct { double *data; void *raw; } Rounded;

__attribute__((noinline)) void vec_init(Vec *v, long n) {
    v->data = aligned_malloc(n * sizeof(double));
    v->n = n;
}

__attribute__((noinline)) void vec_release(Vec *v) { aligned_free(v->data); }

static void rounded_init(Rounded *r, long n) {
    r->raw = malloc(n * sizeof(double) + 32);
    r->data = (double *)(((uintptr_t)r->raw + 31) & ~(uintptr_t)31);
}

double f(const double *x, long n) {
    Vec v;
    Rounded r;
    vec_init(&v, n);
    rounded_init(&r, n);
    for (long i = 0; i < n; i++) {
        v.data[i] = x[i] * x[i] + sin(x[i]);
        r.data[i] = v.data[i] * x[(i + 1) % n];
    }
    double s = 0;
    for (long i = 0; i < n; i++) s += v.data[i] * r.data[(i + 2) % n] + cos(r.data[i]);
    vec_release(&v);
    free(r.raw);
    return s;
}

int main(void) {
    double x[N], dx[N] = {0};
    for (int i = 0; i < N; i++) x[i] = 0.3 + 0.2 * sin(1.3 * i);
    __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_const, (long)N);
    for (int i = 0; i < N; i++) {
        double e[N] = {0}, xp[N], xm[N], h = 1e-6;
        memcpy(xp, x, sizeof x);
        memcpy(xm, x, sizeof x);
        xp[i] += h;
        xm[i] -= h;
        double fd = (f(xp, N) - f(xm, N)) / (2 * h);
        e[i] = 1;
        printf("grad rev_x%d %.17g %.17g\n", i, dx[i], fd);
        printf("grad fwd_x%d %.17g %.17g\n", i, __enzyme_fwddiff((void *)f, enzyme_dup, x, e, enzyme_const, (long)N), fd);
    }
    return 0;
}
