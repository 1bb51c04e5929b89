// A cache whose size is only known at run time comes from the per-thread tape
// stack (`synth/tape_stack.py`), which outlives the gradient call: the first call
// (and the first one needing more) allocates it, repeated calls find it and make no
// malloc. The sizes grow and shrink, and two threads differentiate at once (each
// has its own stack); every gradient is checked against the analytic derivative.
// tol: rel=1e-12 abs=1e-12
// grads: 6
// flags: -pthread -Wl,--wrap=malloc
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);

void *__real_malloc(size_t);
static _Atomic long mallocs;

void *__wrap_malloc(size_t n) {
    mallocs++;
    return __real_malloc(n);
}

enum { N = 2 };

/* y = x[i % 2] + sin(y) / 2 for i < m: y is overwritten, cached per iteration (8m bytes) */
__attribute__((noinline)) double chain(const double *x, int m) {
    double y = 1.0;
    for (int i = 0; i < m; i++)
        y = x[i % N] + 0.5 * sin(y);
    return y;
}

static void chain_ref(const double *x, int m, double *g) {
    double y = 1.0, dy[N] = {0};
    for (int i = 0; i < m; i++) {
        int k = i % N;
        double scale = 0.5 * cos(y);
        for (int j = 0; j < N; j++) dy[j] *= scale;
        dy[k] += 1;
        y = x[k] + 0.5 * sin(y);
    }
    for (int j = 0; j < N; j++) g[j] = dy[j];
}

/* Adds the gradient and its reference at x (shifted by `shift`) with m steps. */
static void accumulate(int m, double shift, double *sum, double *ref) {
    double x[N] = {0.4 + shift, -0.7 - shift}, dx[N] = {0}, g[N];
    __enzyme_autodiff((void *)chain, enzyme_dup, x, dx, enzyme_const, m);
    chain_ref(x, m, g);
    for (int j = 0; j < N; j++) { sum[j] += dx[j]; ref[j] += g[j]; }
}

struct work { double sum[N], ref[N]; int seed; };

static void *worker(void *arg) {
    struct work *w = arg;
    for (int call = 0; call < 300; call++)
        accumulate(200 + (call * 37 + w->seed) % 900, 1e-4 * call, w->sum, w->ref);
    return NULL;
}

int main(void) {
    double sum[N] = {0}, ref[N] = {0};
    long repeated = 0;
    /* 5000 steps do not fit in the stack the first call made: that call mallocs the
     * rest, the next one regrows the stack (one malloc); the others find it. */
    int sizes[] = {1000, 1000, 1000, 5000, 5000, 5000, 300, 300, 4000};
    int reused[] = {0, 1, 1, 0, 0, 1, 1, 1, 1};
    for (int k = 0; k < 9; k++) {
        long before = mallocs;
        accumulate(sizes[k], 1e-3 * k, sum, ref);
        if (reused[k])
            repeated += mallocs - before;
    }
    printf("mallocs in repeated calls: %ld\n", repeated);
    for (int j = 0; j < N; j++) printf("grad sum_dx[%d] %.17g %.17g\n", j, sum[j], ref[j]);

    struct work w[2] = {{{0}, {0}, 1}, {{0}, {0}, 2}};
    pthread_t t[2];
    for (int i = 0; i < 2; i++) pthread_create(&t[i], NULL, worker, &w[i]);
    for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < N; j++) printf("grad thread%d_dx[%d] %.17g %.17g\n", i, j, w[i].sum[j], w[i].ref[j]);
    return 0;
}
