/* ODE benchmark program.  INPUT is a size spec "n=64,steps=200"; the state
 * and rates are drawn from a fixed seed.  --method euler|rk4. */
#include "adbench.h"
#include "ode.h"

#include <stdlib.h>
#include <string.h>

#define ODE_DT 0.01

struct ode_ctx {
    int n, steps, rk4;
    double *params; /* [y0 (n) | k (n)] */
    double loss;
    double *grad;
};

static void *ode_load(const struct ab_options *opt)
{
    struct ode_ctx *o = ab_alloc(1, sizeof *o);
    o->n = (int)ab_spec_long(opt->input, "n", 64);
    o->steps = (int)ab_spec_long(opt->input, "steps", 100);
    if (strcmp(opt->method, "euler") == 0)
        o->rk4 = 0;
    else if (strcmp(opt->method, "rk4") == 0)
        o->rk4 = 1;
    else
        ab_die("--method must be euler or rk4, not '%s'", opt->method);
    o->params = ab_alloc(2 * (size_t)o->n, sizeof(double));
    o->grad = ab_alloc(2 * (size_t)o->n, sizeof(double));
    struct ab_rng rng;
    ab_rng_seed(&rng, 20201);
    for (int i = 0; i < o->n; i++) {
        o->params[i] = 2 * ab_rng_uniform(&rng) - 1;      /* y0 in [-1, 1) */
        o->params[o->n + i] = 0.5 + ab_rng_uniform(&rng); /* k in [0.5, 1.5) */
    }
    return o;
}

static void ode_run_objective(void *ctx)
{
    struct ode_ctx *o = ctx;
    o->loss = (o->rk4 ? ode_rk4_objective : ode_euler_objective)(o->params, o->params + o->n,
                                                                 o->n, o->steps, ODE_DT);
}

static void ode_run_gradient(void *ctx)
{
    struct ode_ctx *o = ctx;
    (o->rk4 ? ode_rk4_gradient : ode_euler_gradient)(o->params, o->params + o->n, o->n,
                                                     o->steps, ODE_DT, o->grad,
                                                     o->grad + o->n);
}

static const double *ode_outputs(void *ctx, size_t *n)
{
    *n = 1;
    return &((struct ode_ctx *)ctx)->loss;
}

static size_t ode_inputs(void *ctx, struct ab_segment seg[AB_MAX_SEGMENTS])
{
    struct ode_ctx *o = ctx;
    seg[0] = (struct ab_segment){o->params, 2 * (size_t)o->n};
    return 1;
}

static struct ab_derivative ode_result(void *ctx)
{
    struct ode_ctx *o = ctx;
    return (struct ab_derivative){o->grad, 2 * (size_t)o->n, 1, 2 * (size_t)o->n, NULL, NULL};
}

static void ode_release(void *ctx)
{
    struct ode_ctx *o = ctx;
    free(o->params);
    free(o->grad);
    free(o);
}

int main(int argc, char **argv)
{
    static const struct ab_problem problem = {
        "ode", ode_load, ode_run_objective, ode_run_gradient, ode_outputs,
        ode_inputs, ode_result, ode_release,
    };
    return ab_main(argc, argv, &problem);
}
