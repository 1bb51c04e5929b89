/* Brusselator benchmark program.  INPUT is a size spec "n=32,steps=50"
 * (n = grid side); the initial state is the usual smooth bump
 * u = 22 (y(1-y))^1.5, v = 27 (x(1-x))^1.5, A = 1, B = 3.4, alpha = 0.001,
 * and dt = min(0.01, 0.2 dx^2 / alpha) keeps the Euler steps stable. */
#include "adbench.h"
#include "bruss.h"

#include <math.h>
#include <stdlib.h>

struct bruss_ctx {
    int N, steps;
    double dt;
    double *params; /* [u0 | v0 | A B alpha] */
    double *grad;
    size_t nparams;
    double loss;
};

static void *bruss_load(const struct ab_options *opt)
{
    struct bruss_ctx *b = ab_alloc(1, sizeof *b);
    long N = ab_spec_long(opt->input, "n", 32);
    if (N < 3 || N > 4096)
        ab_die("brusselator grid side n=%ld must be in 3..4096", N);
    b->N = (int)N;
    b->steps = (int)ab_spec_long(opt->input, "steps", 50);
    size_t cells = (size_t)N * N;
    b->nparams = 2 * cells + 3;
    b->params = ab_alloc(b->nparams, sizeof(double));
    b->grad = ab_alloc(b->nparams, sizeof(double));
    for (long j = 0; j < N; j++) {
        for (long i = 0; i < N; i++) {
            double x = (double)i / N, y = (double)j / N;
            b->params[j * N + i] = 22 * pow(y * (1 - y), 1.5);
            b->params[cells + j * N + i] = 27 * pow(x * (1 - x), 1.5);
        }
    }
    double *p = &b->params[2 * cells];
    p[0] = 1.0;
    p[1] = 3.4;
    p[2] = 0.001;
    b->dt = fmin(0.01, 0.2 / ((double)N * N) / p[2]);
    return b;
}

static void bruss_run_objective(void *ctx)
{
    struct bruss_ctx *b = ctx;
    size_t cells = (size_t)b->N * b->N;
    bruss_objective(b->params, b->params + cells, b->params + 2 * cells, b->N, b->steps, b->dt,
                    &b->loss);
}

static void bruss_run_gradient(void *ctx)
{
    struct bruss_ctx *b = ctx;
    size_t cells = (size_t)b->N * b->N;
    bruss_gradient(b->params, b->params + cells, b->params + 2 * cells, b->N, b->steps, b->dt,
                   b->grad, b->grad + cells, b->grad + 2 * cells);
}

static const double *bruss_outputs(void *ctx, size_t *n)
{
    *n = 1;
    return &((struct bruss_ctx *)ctx)->loss;
}

static size_t bruss_inputs(void *ctx, struct ab_segment seg[AB_MAX_SEGMENTS])
{
    struct bruss_ctx *b = ctx;
    seg[0] = (struct ab_segment){b->params, b->nparams};
    return 1;
}

static struct ab_derivative bruss_result(void *ctx)
{
    struct bruss_ctx *b = ctx;
    return (struct ab_derivative){b->grad, b->nparams, 1, b->nparams, NULL, NULL};
}

static void bruss_release(void *ctx)
{
    struct bruss_ctx *b = ctx;
    free(b->params);
    free(b->grad);
    free(b);
}

int main(int argc, char **argv)
{
    static const struct ab_problem problem = {
        "bruss", bruss_load, bruss_run_objective, bruss_run_gradient, bruss_outputs,
        bruss_inputs, bruss_result, bruss_release,
    };
    return ab_main(argc, argv, &problem);
}
