/* GMM benchmark program: reads an ADBench gmm file (see adbench.h for the
 * command line).  --replicate: the file holds one point that stands for all
 * n (ADBench's 2.5M files). */
#include "adbench.h"
#include "gmm.h"

#include <stdlib.h>
#include <string.h>

struct gmm_ctx {
    int d, k, n, icf_size;
    double *alphas, *means, *icf, *x;
    double gamma;
    int m;
    double err;
    double *grad; /* [alphas | means | icf] */
    size_t nparams;
};

static void *gmm_load(const struct ab_options *opt)
{
    struct gmm_ctx *g = ab_alloc(1, sizeof *g);
    FILE *f = ab_open(opt->input);
    g->d = (int)ab_read_long(f, opt->input, "D");
    g->k = (int)ab_read_long(f, opt->input, "K");
    g->n = (int)ab_read_long(f, opt->input, "n");
    if (g->d < 1 || g->k < 1 || g->n < 1)
        ab_die("%s: D, K and n must be positive", opt->input);
    int d = g->d, k = g->k, n = g->n;
    g->icf_size = d + d * (d - 1) / 2;
    g->nparams = (size_t)k * (1 + d + g->icf_size);
    g->alphas = ab_alloc(g->nparams, sizeof(double));
    g->means = g->alphas + k;
    g->icf = g->means + (size_t)k * d;
    g->grad = ab_alloc(g->nparams, sizeof(double));
    g->x = ab_alloc((size_t)n * d, sizeof(double));
    ab_read_doubles(f, opt->input, g->alphas, k, "alphas");
    ab_read_doubles(f, opt->input, g->means, (size_t)k * d, "means");
    ab_read_doubles(f, opt->input, g->icf, (size_t)k * g->icf_size, "icf");
    size_t stored = opt->replicate ? 1 : (size_t)n;
    ab_read_doubles(f, opt->input, g->x, stored * d, "points");
    for (size_t i = stored; i < (size_t)n; i++)
        memcpy(&g->x[i * d], g->x, sizeof(double) * d);
    double wishart[2];
    ab_read_doubles(f, opt->input, wishart, 2, "the Wishart gamma and m");
    g->gamma = wishart[0];
    g->m = (int)wishart[1];
    if (g->m != wishart[1])
        ab_die("%s: Wishart m must be an integer", opt->input);
    fclose(f);
    return g;
}

static void gmm_run_objective(void *ctx)
{
    struct gmm_ctx *g = ctx;
    gmm_objective(g->d, g->k, g->n, g->alphas, g->means, g->icf, g->x, g->gamma, g->m, &g->err);
}

static void gmm_run_gradient(void *ctx)
{
    struct gmm_ctx *g = ctx;
    gmm_gradient(g->d, g->k, g->n, g->alphas, g->means, g->icf, g->x, g->gamma, g->m, g->grad,
                 g->grad + g->k, g->grad + (size_t)g->k * (1 + g->d));
}

static const double *gmm_outputs(void *ctx, size_t *n)
{
    *n = 1;
    return &((struct gmm_ctx *)ctx)->err;
}

static size_t gmm_inputs(void *ctx, struct ab_segment seg[AB_MAX_SEGMENTS])
{
    struct gmm_ctx *g = ctx;
    seg[0] = (struct ab_segment){g->alphas, g->nparams}; /* alphas, means, icf are adjacent */
    return 1;
}

static struct ab_derivative gmm_result(void *ctx)
{
    struct gmm_ctx *g = ctx;
    return (struct ab_derivative){g->grad, g->nparams, 1, g->nparams, NULL, NULL};
}

static void gmm_release(void *ctx)
{
    struct gmm_ctx *g = ctx;
    free(g->alphas);
    free(g->grad);
    free(g->x);
    free(g);
}

int main(int argc, char **argv)
{
    static const struct ab_problem problem = {
        "gmm", gmm_load, gmm_run_objective, gmm_run_gradient, gmm_outputs,
        gmm_inputs, gmm_result, gmm_release,
    };
    return ab_main(argc, argv, &problem);
}
