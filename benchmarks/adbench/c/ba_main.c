/* BA benchmark program: reads an ADBench ba file, whose single camera,
 * point, weight and feature stand for all n cameras, m points and p
 * observations; observation i sees camera i mod n and point i mod m.
 * --limit N keeps the first N observations (and at most N cameras and
 * points): the same problem in small, for finite-difference checks. */
#include "adbench.h"
#include "ba.h"

#include <stdlib.h>
#include <string.h>

struct ba_ctx {
    int n, m, p;
    double *params; /* [cams (11n) | X (3m) | w (p)] */
    double *cams, *X, *w, *feats;
    int *obs;
    double *errs; /* [reproj (2p) | weight (p)] */
    struct ba_jacobian J;
};

static long ba_min(long a, long b)
{
    return a < b ? a : b;
}

static void *ba_load(const struct ab_options *opt)
{
    struct ba_ctx *b = ab_alloc(1, sizeof *b);
    FILE *f = ab_open(opt->input);
    long n = ab_read_long(f, opt->input, "n");
    long m = ab_read_long(f, opt->input, "m");
    long p = ab_read_long(f, opt->input, "p");
    if (n < 1 || m < 1 || p < 1)
        ab_die("%s: n, m and p must be positive", opt->input);
    if (opt->limit > 0) {
        p = ba_min(p, opt->limit);
        n = ba_min(n, p);
        m = ba_min(m, p);
    }
    if ((2 * BA_BLOCK + 1) * p > 2147483647L || BA_CAM * n + 3 * m + p > 2147483647L)
        ab_die("%s: problem too large for 32-bit sparse indices", opt->input);
    b->n = (int)n;
    b->m = (int)m;
    b->p = (int)p;
    size_t nparams = (size_t)BA_CAM * n + 3 * (size_t)m + (size_t)p;
    b->params = ab_alloc(nparams, sizeof(double));
    b->cams = b->params;
    b->X = b->cams + (size_t)BA_CAM * n;
    b->w = b->X + 3 * (size_t)m;
    b->feats = ab_alloc(2 * (size_t)p, sizeof(double));
    b->obs = ab_alloc(2 * (size_t)p, sizeof(int));
    b->errs = ab_alloc(3 * (size_t)p, sizeof(double));

    ab_read_doubles(f, opt->input, b->cams, BA_CAM, "the camera");
    ab_read_doubles(f, opt->input, b->X, 3, "the point");
    ab_read_doubles(f, opt->input, b->w, 1, "the weight");
    ab_read_doubles(f, opt->input, b->feats, 2, "the feature");
    fclose(f);
    for (long i = 1; i < n; i++)
        memcpy(&b->cams[BA_CAM * i], b->cams, sizeof(double) * BA_CAM);
    for (long i = 1; i < m; i++)
        memcpy(&b->X[3 * i], b->X, sizeof(double) * 3);
    for (long i = 1; i < p; i++) {
        b->w[i] = b->w[0];
        b->feats[2 * i] = b->feats[0];
        b->feats[2 * i + 1] = b->feats[1];
    }
    for (long i = 0; i < p; i++) {
        b->obs[2 * i] = (int)(i % n);
        b->obs[2 * i + 1] = (int)(i % m);
    }
    ba_jacobian_alloc(&b->J, b->n, b->m, b->p);
    return b;
}

static void ba_run_objective(void *ctx)
{
    struct ba_ctx *b = ctx;
    ba_objective(b->n, b->m, b->p, b->cams, b->X, b->w, b->obs, b->feats, b->errs,
                 b->errs + 2 * (size_t)b->p);
}

static void ba_run_jacobian(void *ctx)
{
    struct ba_ctx *b = ctx;
    ba_jacobian(b->n, b->m, b->p, b->cams, b->X, b->w, b->obs, b->feats, &b->J);
}

static const double *ba_outputs(void *ctx, size_t *n)
{
    struct ba_ctx *b = ctx;
    *n = 3 * (size_t)b->p;
    return b->errs;
}

static size_t ba_inputs(void *ctx, struct ab_segment seg[AB_MAX_SEGMENTS])
{
    struct ba_ctx *b = ctx;
    seg[0] = (struct ab_segment){b->params, (size_t)b->J.ncols};
    return 1;
}

static struct ab_derivative ba_result(void *ctx)
{
    struct ba_ctx *b = ctx;
    return (struct ab_derivative){b->J.vals, (size_t)b->J.nnz, (size_t)b->J.nrows,
                                  (size_t)b->J.ncols, b->J.rowptr, b->J.cols};
}

static void ba_release(void *ctx)
{
    struct ba_ctx *b = ctx;
    free(b->params);
    free(b->feats);
    free(b->obs);
    free(b->errs);
    free(b->J.rowptr);
    free(b->J.cols);
    free(b->J.vals);
    free(b);
}

int main(int argc, char **argv)
{
    static const struct ab_problem problem = {
        "ba", ba_load, ba_run_objective, ba_run_jacobian, ba_outputs,
        ba_inputs, ba_result, ba_release,
    };
    return ab_main(argc, argv, &problem);
}
