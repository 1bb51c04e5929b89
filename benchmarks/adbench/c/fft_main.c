/* FFT benchmark program.  INPUT is a size spec "n=1024" (a power of two);
 * the signal is drawn from a fixed seed. */
#include "adbench.h"
#include "fft.h"

#include <stdlib.h>

struct fft_ctx {
    int n;
    double *x, *grad;
    double loss;
};

static void *fft_load(const struct ab_options *opt)
{
    struct fft_ctx *f = ab_alloc(1, sizeof *f);
    long n = ab_spec_long(opt->input, "n", 1024);
    if (n & (n - 1) || n > (1L << 26))
        ab_die("fft size n=%ld must be a power of two up to 2^26", n);
    f->n = (int)n;
    f->x = ab_alloc(2 * (size_t)n, sizeof(double));
    f->grad = ab_alloc(2 * (size_t)n, sizeof(double));
    struct ab_rng rng;
    ab_rng_seed(&rng, 1965);
    for (long i = 0; i < 2 * n; i++)
        f->x[i] = 2 * ab_rng_uniform(&rng) - 1;
    return f;
}

static void fft_run_objective(void *ctx)
{
    struct fft_ctx *f = ctx;
    fft_objective(f->x, f->n, &f->loss);
}

static void fft_run_gradient(void *ctx)
{
    struct fft_ctx *f = ctx;
    fft_gradient(f->x, f->n, f->grad);
}

static const double *fft_outputs(void *ctx, size_t *n)
{
    *n = 1;
    return &((struct fft_ctx *)ctx)->loss;
}

static size_t fft_inputs(void *ctx, struct ab_segment seg[AB_MAX_SEGMENTS])
{
    struct fft_ctx *f = ctx;
    seg[0] = (struct ab_segment){f->x, 2 * (size_t)f->n};
    return 1;
}

static struct ab_derivative fft_result(void *ctx)
{
    struct fft_ctx *f = ctx;
    return (struct ab_derivative){f->grad, 2 * (size_t)f->n, 1, 2 * (size_t)f->n, NULL, NULL};
}

static void fft_release(void *ctx)
{
    struct fft_ctx *f = ctx;
    free(f->x);
    free(f->grad);
    free(f);
}

int main(int argc, char **argv)
{
    static const struct ab_problem problem = {
        "fft", fft_load, fft_run_objective, fft_run_gradient, fft_outputs,
        fft_inputs, fft_result, fft_release,
    };
    return ab_main(argc, argv, &problem);
}
