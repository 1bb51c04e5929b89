/* GPT benchmark program.  INPUT is a size spec "v=256,t=64,c=64,l=2,h=4,b=4"
 * (vocabulary, context length, width, blocks, heads, batch).  Parameters and
 * token sequences are drawn from a fixed seed: weights uniform in
 * [-0.1, 0.1), layer-norm gains 1 + U[-0.1, 0.1), tokens uniform over the
 * vocabulary; the target of each position is the sequence's next token. */
#include "adbench.h"
#include "gpt.h"

#include <stdlib.h>

struct gpt_ctx {
    int B, T, C, L, H, V;
    double *params, *grad;
    size_t nparams;
    int *tokens, *targets;
    double loss;
};

static int spec_int(const char *spec, const char *key, long fallback, long max)
{
    long v = ab_spec_long(spec, key, fallback);
    if (v > max)
        ab_die("gpt size %s=%ld is above %ld", key, v, max);
    return (int)v;
}

static void fill_params(struct gpt_ctx *g, struct ab_rng *rng)
{
    for (size_t i = 0; i < g->nparams; i++)
        g->params[i] = 0.2 * ab_rng_uniform(rng) - 0.1;
    int C = g->C;
    for (int l = 0; l <= g->L; l++) { /* the gains of ln1, ln2 (and lnf for l = L) */
        double *ln1 = g->params + (l < g->L ? gpt_block_offset(g->V, g->T, C, l)
                                            : gpt_final_offset(g->V, g->T, C, g->L));
        double *ln2 = ln1 + 4 * (size_t)C * C + 6 * (size_t)C;
        for (int i = 0; i < C; i++) {
            ln1[i] += 1;
            if (l < g->L)
                ln2[i] += 1;
        }
    }
}

static void *gpt_load(const struct ab_options *opt)
{
    struct gpt_ctx *g = ab_alloc(1, sizeof *g);
    g->V = spec_int(opt->input, "v", 256, 1 << 20);
    g->T = spec_int(opt->input, "t", 64, 4096);
    g->C = spec_int(opt->input, "c", 64, 4096);
    g->L = spec_int(opt->input, "l", 2, 64);
    g->H = spec_int(opt->input, "h", 4, 256);
    g->B = spec_int(opt->input, "b", 4, 1024);
    if (g->C % g->H)
        ab_die("gpt width c=%d must be a multiple of the heads h=%d", g->C, g->H);
    g->nparams = gpt_param_count(g->V, g->T, g->C, g->L);
    g->params = ab_alloc(g->nparams, sizeof(double));
    g->grad = ab_alloc(g->nparams, sizeof(double));
    g->tokens = ab_alloc((size_t)g->B * g->T, sizeof(int));
    g->targets = ab_alloc((size_t)g->B * g->T, sizeof(int));
    struct ab_rng rng;
    ab_rng_seed(&rng, 2019);
    fill_params(g, &rng);
    for (int b = 0; b < g->B; b++) {
        int next = (int)(ab_rng_uniform(&rng) * g->V);
        for (int t = 0; t < g->T; t++) {
            g->tokens[b * g->T + t] = next;
            next = (int)(ab_rng_uniform(&rng) * g->V);
            g->targets[b * g->T + t] = next;
        }
    }
    return g;
}

static void gpt_run_objective(void *ctx)
{
    struct gpt_ctx *g = ctx;
    gpt_objective(g->params, g->tokens, g->targets, g->B, g->T, g->C, g->L, g->H, g->V, &g->loss);
}

static void gpt_run_gradient(void *ctx)
{
    struct gpt_ctx *g = ctx;
    gpt_gradient(g->params, g->tokens, g->targets, g->B, g->T, g->C, g->L, g->H, g->V, g->grad);
}

static const double *gpt_outputs(void *ctx, size_t *n)
{
    *n = 1;
    return &((struct gpt_ctx *)ctx)->loss;
}

static size_t gpt_inputs(void *ctx, struct ab_segment seg[AB_MAX_SEGMENTS])
{
    struct gpt_ctx *g = ctx;
    seg[0] = (struct ab_segment){g->params, g->nparams};
    return 1;
}

static struct ab_derivative gpt_result(void *ctx)
{
    struct gpt_ctx *g = ctx;
    return (struct ab_derivative){g->grad, g->nparams, 1, g->nparams, NULL, NULL};
}

static void gpt_release(void *ctx)
{
    struct gpt_ctx *g = ctx;
    free(g->params);
    free(g->grad);
    free(g->tokens);
    free(g->targets);
    free(g);
}

int main(int argc, char **argv)
{
    static const struct ab_problem problem = {
        "gpt", gpt_load, gpt_run_objective, gpt_run_gradient, gpt_outputs,
        gpt_inputs, gpt_result, gpt_release,
    };
    return ab_main(argc, argv, &problem);
}
