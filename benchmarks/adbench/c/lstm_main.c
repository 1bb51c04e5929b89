/* LSTM benchmark program: reads an ADBench lstm file.  --truncate N uses
 * only the first N characters of the sequence (a shorter run of the same
 * model, for quick checks). */
#include "adbench.h"
#include "lstm.h"

#include <stdlib.h>

struct lstm_ctx {
    int l, c, b;
    double *params; /* [main (8lb) | extra (3b)] */
    double *state, *sequence;
    double loss;
    double *grad;
    size_t nparams;
};

static void *lstm_load(const struct ab_options *opt)
{
    struct lstm_ctx *s = ab_alloc(1, sizeof *s);
    FILE *f = ab_open(opt->input);
    s->l = (int)ab_read_long(f, opt->input, "l");
    long c = ab_read_long(f, opt->input, "c");
    s->b = (int)ab_read_long(f, opt->input, "b");
    if (s->l < 1 || c < 2 || s->b < 1)
        ab_die("%s: need l >= 1, c >= 2, b >= 1", opt->input);
    int l = s->l, b = s->b;
    s->nparams = (size_t)8 * l * b + 3 * (size_t)b;
    s->params = ab_alloc(s->nparams, sizeof(double));
    s->grad = ab_alloc(s->nparams, sizeof(double));
    s->state = ab_alloc((size_t)2 * l * b, sizeof(double));
    s->sequence = ab_alloc((size_t)c * b, sizeof(double));
    ab_read_doubles(f, opt->input, s->params, (size_t)8 * l * b, "main_params");
    ab_read_doubles(f, opt->input, s->params + (size_t)8 * l * b, 3 * (size_t)b, "extra_params");
    ab_read_doubles(f, opt->input, s->state, (size_t)2 * l * b, "state");
    ab_read_doubles(f, opt->input, s->sequence, (size_t)c * b, "sequence");
    fclose(f);
    if (opt->truncate > 0 && opt->truncate < c) {
        if (opt->truncate < 2)
            ab_die("--truncate needs at least 2 characters");
        c = opt->truncate;
    }
    s->c = (int)c;
    return s;
}

static void lstm_run_objective(void *ctx)
{
    struct lstm_ctx *s = ctx;
    lstm_objective(s->l, s->c, s->b, s->params, s->params + (size_t)8 * s->l * s->b, s->state,
                   s->sequence, &s->loss);
}

static void lstm_run_gradient(void *ctx)
{
    struct lstm_ctx *s = ctx;
    size_t nmain = (size_t)8 * s->l * s->b;
    lstm_gradient(s->l, s->c, s->b, s->params, s->params + nmain, s->state, s->sequence,
                  s->grad, s->grad + nmain);
}

static const double *lstm_outputs(void *ctx, size_t *n)
{
    *n = 1;
    return &((struct lstm_ctx *)ctx)->loss;
}

static size_t lstm_inputs(void *ctx, struct ab_segment seg[AB_MAX_SEGMENTS])
{
    struct lstm_ctx *s = ctx;
    seg[0] = (struct ab_segment){s->params, s->nparams};
    return 1;
}

static struct ab_derivative lstm_result(void *ctx)
{
    struct lstm_ctx *s = ctx;
    return (struct ab_derivative){s->grad, s->nparams, 1, s->nparams, NULL, NULL};
}

static void lstm_release(void *ctx)
{
    struct lstm_ctx *s = ctx;
    free(s->params);
    free(s->grad);
    free(s->state);
    free(s->sequence);
    free(s);
}

int main(int argc, char **argv)
{
    static const struct ab_problem problem = {
        "lstm", lstm_load, lstm_run_objective, lstm_run_gradient, lstm_outputs,
        lstm_inputs, lstm_result, lstm_release,
    };
    return ab_main(argc, argv, &problem);
}
