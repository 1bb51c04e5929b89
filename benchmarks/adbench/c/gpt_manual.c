/* Hand-written GPT gradient: a forward pass that keeps every block's
 * activations (what a training step keeps), then the backward pass, layer
 * by layer in reverse. */
#include "gpt.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define GPT_GELU_SCALE 0.7978845608028654 /* sqrt(2 / pi) */

/* What the forward pass keeps of one block. */
struct gpt_block_acts {
    double *in;              /* the block's input (rows x C), owned by the previous block */
    double *ln1, *mean1, *rstd1;
    double *qkv, *att, *y;   /* attention: rows x 3C, B x H x T x T, rows x C */
    double *mid;             /* in + attention projection */
    double *ln2, *mean2, *rstd2;
    double *hid, *act;       /* MLP: rows x 4C before and after GELU */
    double *out;             /* mid + MLP projection */
};

/* The parameter (or gradient) pointers of one block. */
struct gpt_block_params {
    double *ln1w, *ln1b, *qkvw, *qkvb, *projw, *projb;
    double *ln2w, *ln2b, *fcw, *fcb, *fcprojw, *fcprojb;
};

static struct gpt_block_params block_params(double *base, int C)
{
    struct gpt_block_params p;
    p.ln1w = base;
    p.ln1b = p.ln1w + C;
    p.qkvw = p.ln1b + C;
    p.qkvb = p.qkvw + 3 * (size_t)C * C;
    p.projw = p.qkvb + 3 * C;
    p.projb = p.projw + (size_t)C * C;
    p.ln2w = p.projb + C;
    p.ln2b = p.ln2w + C;
    p.fcw = p.ln2b + C;
    p.fcb = p.fcw + 4 * (size_t)C * C;
    p.fcprojw = p.fcb + 4 * C;
    p.fcprojb = p.fcprojw + 4 * (size_t)C * C;
    return p;
}

/* din += dout w (when din), dw += dout^T in, dbias += column sums of dout (when dbias). */
static void matmul_backward(double *din, double *dw, double *dbias, const double *dout,
                            const double *in, const double *w, int rows, int nin, int nout)
{
    for (int r = 0; r < rows; r++) {
        const double *a = in + (size_t)r * nin;
        double *da = din ? din + (size_t)r * nin : NULL;
        for (int o = 0; o < nout; o++) {
            double d = dout[(size_t)r * nout + o];
            const double *wo = w + (size_t)o * nin;
            double *dwo = dw + (size_t)o * nin;
            if (dbias)
                dbias[o] += d;
            if (da)
                for (int i = 0; i < nin; i++)
                    da[i] += d * wo[i];
            for (int i = 0; i < nin; i++)
                dwo[i] += d * a[i];
        }
    }
}

/* dx += d layernorm(x) / dx applied to dout; dw, db accumulate. */
static void layernorm_backward(double *dx, double *dw, double *db, const double *dout,
                               const double *in, const double *mean, const double *rstd,
                               const double *w, int rows, int C)
{
    for (int r = 0; r < rows; r++) {
        const double *x = in + (size_t)r * C, *g = dout + (size_t)r * C;
        double m = mean[r], s = rstd[r];
        double mean_dn = 0, mean_dn_xhat = 0;
        for (int i = 0; i < C; i++) {
            double dn = g[i] * w[i];
            mean_dn += dn;
            mean_dn_xhat += dn * (x[i] - m) * s;
        }
        mean_dn /= C;
        mean_dn_xhat /= C;
        double *d = dx + (size_t)r * C;
        for (int i = 0; i < C; i++) {
            double xhat = (x[i] - m) * s;
            dw[i] += g[i] * xhat;
            db[i] += g[i];
            d[i] += s * (g[i] * w[i] - mean_dn - xhat * mean_dn_xhat);
        }
    }
}

/* dqkv (zeroed by the caller) from dout, through the softmax weights att. */
static void attention_backward(double *dqkv, double *datt, const double *dout, const double *att,
                               const double *qkv, int B, int T, int C, int H)
{
    int hs = C / H;
    double scale = 1 / sqrt((double)hs);
    for (int b = 0; b < B; b++) {
        for (int t = 0; t < T; t++) {
            size_t row = ((size_t)b * T + t) * 3 * C;
            for (int h = 0; h < H; h++) {
                const double *w = att + (((size_t)b * H + h) * T + t) * T;
                const double *g = dout + ((size_t)b * T + t) * C + h * hs;
                double weighted = 0;
                for (int u = 0; u <= t; u++) {
                    size_t v = ((size_t)b * T + u) * 3 * C + 2 * C + h * hs;
                    double d = 0;
                    for (int i = 0; i < hs; i++) {
                        d += g[i] * qkv[v + i];
                        dqkv[v + i] += w[u] * g[i];
                    }
                    datt[u] = d;
                    weighted += w[u] * d;
                }
                const double *q = qkv + row + h * hs;
                double *dq = dqkv + row + h * hs;
                for (int u = 0; u <= t; u++) {
                    double ds = w[u] * (datt[u] - weighted) * scale;
                    size_t k = ((size_t)b * T + u) * 3 * C + C + h * hs;
                    for (int i = 0; i < hs; i++) {
                        dq[i] += ds * qkv[k + i];
                        dqkv[k + i] += ds * q[i];
                    }
                }
            }
        }
    }
}

static void gelu_backward(double *dhid, const double *dact, const double *hid, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        double x = hid[i];
        double th = tanh(GPT_GELU_SCALE * (x + 0.044715 * x * x * x));
        double slope = 0.5 * (1 + th) +
                       0.5 * x * (1 - th * th) * GPT_GELU_SCALE * (1 + 3 * 0.044715 * x * x);
        dhid[i] = slope * dact[i];
    }
}

/* dlogits = (softmax(logits) - onehot(target)) / rows. */
static void crossentropy_backward(double *dlogits, const double *logits, const int *targets,
                                  int rows, int V)
{
    for (int r = 0; r < rows; r++) {
        const double *z = logits + (size_t)r * V;
        double *d = dlogits + (size_t)r * V;
        double top = z[0];
        for (int v = 1; v < V; v++)
            if (z[v] > top)
                top = z[v];
        double sum = 0;
        for (int v = 0; v < V; v++) {
            d[v] = exp(z[v] - top);
            sum += d[v];
        }
        for (int v = 0; v < V; v++)
            d[v] /= sum * rows;
        d[targets[r]] -= 1.0 / rows;
    }
}

static double *take(double **arena, size_t count)
{
    double *p = *arena;
    *arena += count;
    return p;
}

static void forward_block(struct gpt_block_acts *a, double **arena, struct gpt_block_params p,
                          int B, int T, int C, int H)
{
    int rows = B * T;
    size_t n = (size_t)rows * C;
    a->ln1 = take(arena, n);
    a->mean1 = take(arena, rows);
    a->rstd1 = take(arena, rows);
    a->qkv = take(arena, 3 * n);
    a->att = take(arena, (size_t)B * H * T * T);
    a->y = take(arena, n);
    a->mid = take(arena, n);
    a->ln2 = take(arena, n);
    a->mean2 = take(arena, rows);
    a->rstd2 = take(arena, rows);
    a->hid = take(arena, 4 * n);
    a->act = take(arena, 4 * n);
    a->out = take(arena, n);
    gpt_layernorm(a->ln1, a->mean1, a->rstd1, a->in, p.ln1w, p.ln1b, rows, C);
    gpt_matmul(a->qkv, a->ln1, p.qkvw, p.qkvb, rows, C, 3 * C);
    gpt_attention(a->y, a->att, a->qkv, B, T, C, H);
    gpt_matmul(a->mid, a->y, p.projw, p.projb, rows, C, C);
    gpt_add(a->mid, a->mid, a->in, n);
    gpt_layernorm(a->ln2, a->mean2, a->rstd2, a->mid, p.ln2w, p.ln2b, rows, C);
    gpt_matmul(a->hid, a->ln2, p.fcw, p.fcb, rows, C, 4 * C);
    gpt_gelu(a->act, a->hid, 4 * n);
    gpt_matmul(a->out, a->act, p.fcprojw, p.fcprojb, rows, 4 * C, C);
    gpt_add(a->out, a->out, a->mid, n);
}

/* Scratch of the backward pass, reused by every block. */
struct gpt_scratch {
    double *dln, *dy, *dqkv, *dhid, *dact, *datt;
};

/* dx: the loss's gradient w.r.t. the block's output on entry, its input on return. */
static void backward_block(double *dx, const struct gpt_block_acts *a, struct gpt_block_params p,
                           struct gpt_block_params d, const struct gpt_scratch *s, int B, int T,
                           int C, int H)
{
    int rows = B * T;
    size_t n = (size_t)rows * C;
    memset(s->dact, 0, sizeof(double) * 4 * n);
    matmul_backward(s->dact, d.fcprojw, d.fcprojb, dx, a->act, p.fcprojw, rows, 4 * C, C);
    gelu_backward(s->dhid, s->dact, a->hid, 4 * n);
    memset(s->dln, 0, sizeof(double) * n);
    matmul_backward(s->dln, d.fcw, d.fcb, s->dhid, a->ln2, p.fcw, rows, C, 4 * C);
    layernorm_backward(dx, d.ln2w, d.ln2b, s->dln, a->mid, a->mean2, a->rstd2, p.ln2w, rows, C);
    memset(s->dy, 0, sizeof(double) * n);
    matmul_backward(s->dy, d.projw, d.projb, dx, a->y, p.projw, rows, C, C);
    memset(s->dqkv, 0, sizeof(double) * 3 * n);
    attention_backward(s->dqkv, s->datt, s->dy, a->att, a->qkv, B, T, C, H);
    memset(s->dln, 0, sizeof(double) * n);
    matmul_backward(s->dln, d.qkvw, d.qkvb, s->dqkv, a->ln1, p.qkvw, rows, C, 3 * C);
    layernorm_backward(dx, d.ln1w, d.ln1b, s->dln, a->in, a->mean1, a->rstd1, p.ln1w, rows, C);
}

static size_t kept_doubles(int B, int T, int C, int L, int H, int V)
{
    size_t rows = (size_t)B * T;
    size_t block = rows * (16 * (size_t)C + 4) + (size_t)B * H * T * T;
    return rows * C + L * block + rows * ((size_t)C + 2) + rows * V;
}

void gpt_gradient(const double *params, const int *tokens, const int *targets, int B, int T,
                  int C, int L, int H, int V, double *d_params)
{
    int rows = B * T;
    size_t n = (size_t)rows * C;
    double *kept = malloc(sizeof(double) * kept_doubles(B, T, C, L, H, V));
    struct gpt_block_acts *blocks = malloc(sizeof *blocks * L);
    double *arena = kept;
    double *x0 = take(&arena, n);
    gpt_embed(x0, params, params + (size_t)V * C, tokens, B, T, C);
    double *in = x0;
    for (int l = 0; l < L; l++) {
        blocks[l].in = in;
        forward_block(&blocks[l], &arena,
                      block_params((double *)params + gpt_block_offset(V, T, C, l), C), B, T, C, H);
        in = blocks[l].out;
    }
    const double *lnfw = params + gpt_final_offset(V, T, C, L);
    double *lnf = take(&arena, n), *meanf = take(&arena, rows), *rstdf = take(&arena, rows);
    double *logits = take(&arena, (size_t)rows * V);
    gpt_layernorm(lnf, meanf, rstdf, in, lnfw, lnfw + C, rows, C);
    gpt_matmul(logits, lnf, params, NULL, rows, C, V);

    memset(d_params, 0, sizeof(double) * gpt_param_count(V, T, C, L));
    double *dlogits = malloc(sizeof(double) * rows * V);
    double *dln = malloc(sizeof(double) * n), *dx = calloc(n, sizeof(double));
    crossentropy_backward(dlogits, logits, targets, rows, V);
    memset(dln, 0, sizeof(double) * n);
    matmul_backward(dln, d_params, NULL, dlogits, lnf, params, rows, C, V);
    double *dlnfw = d_params + gpt_final_offset(V, T, C, L);
    layernorm_backward(dx, dlnfw, dlnfw + C, dln, in, meanf, rstdf, lnfw, rows, C);

    struct gpt_scratch s = {dln, malloc(sizeof(double) * n), malloc(sizeof(double) * 3 * n),
                            malloc(sizeof(double) * 4 * n), malloc(sizeof(double) * 4 * n),
                            malloc(sizeof(double) * T)};
    for (int l = L - 1; l >= 0; l--) {
        size_t off = gpt_block_offset(V, T, C, l);
        backward_block(dx, &blocks[l], block_params((double *)params + off, C),
                       block_params(d_params + off, C), &s, B, T, C, H);
    }
    double *dwpe = d_params + (size_t)V * C;
    for (int b = 0; b < B; b++) {
        for (int t = 0; t < T; t++) {
            const double *g = dx + ((size_t)b * T + t) * C;
            double *dte = d_params + (size_t)tokens[b * T + t] * C, *dpe = dwpe + (size_t)t * C;
            for (int i = 0; i < C; i++) {
                dte[i] += g[i];
                dpe[i] += g[i];
            }
        }
    }
    free(s.dy);
    free(s.dqkv);
    free(s.dhid);
    free(s.dact);
    free(s.datt);
    free(dlogits);
    free(dln);
    free(dx);
    free(blocks);
    free(kept);
}
