/* GPT objective (see gpt.h): a plain forward pass, as inference code would
 * write it, whose scratch buffers every block reuses. */
#include "gpt.h"

#include <math.h>
#include <stdlib.h>

#define GPT_LN_EPS 1e-5
#define GPT_GELU_SCALE 0.7978845608028654 /* sqrt(2 / pi) */

size_t gpt_block_size(int C)
{
    return 12 * (size_t)C * C + 13 * (size_t)C;
}

size_t gpt_block_offset(int V, int T, int C, int l)
{
    return ((size_t)V + T) * C + (size_t)l * gpt_block_size(C);
}

size_t gpt_final_offset(int V, int T, int C, int L)
{
    return gpt_block_offset(V, T, C, L);
}

size_t gpt_param_count(int V, int T, int C, int L)
{
    return gpt_final_offset(V, T, C, L) + 2 * (size_t)C;
}

void gpt_embed(double *x, const double *wte, const double *wpe, const int *tokens, int B, int T,
               int C)
{
    for (int b = 0; b < B; b++) {
        for (int t = 0; t < T; t++) {
            double *row = x + ((size_t)b * T + t) * C;
            const double *te = wte + (size_t)tokens[b * T + t] * C, *pe = wpe + (size_t)t * C;
            for (int i = 0; i < C; i++)
                row[i] = te[i] + pe[i];
        }
    }
}

void gpt_layernorm(double *out, double *mean, double *rstd, const double *in, const double *w,
                   const double *b, int rows, int C)
{
    for (int r = 0; r < rows; r++) {
        const double *x = in + (size_t)r * C;
        double m = 0;
        for (int i = 0; i < C; i++)
            m += x[i];
        m /= C;
        double var = 0;
        for (int i = 0; i < C; i++)
            var += (x[i] - m) * (x[i] - m);
        double s = 1 / sqrt(var / C + GPT_LN_EPS);
        double *y = out + (size_t)r * C;
        for (int i = 0; i < C; i++)
            y[i] = (x[i] - m) * s * w[i] + b[i];
        mean[r] = m;
        rstd[r] = s;
    }
}

/* Rows in blocks of four: each weight is loaded once per block and used
 * four times, the inner loop runs along contiguous rows of in and w. */
void gpt_matmul(double *out, const double *in, const double *w, const double *bias, int rows,
                int nin, int nout)
{
    int r = 0;
    for (; r + 4 <= rows; r += 4) {
        const double *a0 = in + (size_t)r * nin, *a1 = a0 + nin, *a2 = a1 + nin, *a3 = a2 + nin;
        for (int o = 0; o < nout; o++) {
            const double *wo = w + (size_t)o * nin;
            double start = bias ? bias[o] : 0.0;
            double s0 = start, s1 = start, s2 = start, s3 = start;
            for (int i = 0; i < nin; i++) {
                double wi = wo[i];
                s0 += a0[i] * wi;
                s1 += a1[i] * wi;
                s2 += a2[i] * wi;
                s3 += a3[i] * wi;
            }
            out[(size_t)r * nout + o] = s0;
            out[(size_t)(r + 1) * nout + o] = s1;
            out[(size_t)(r + 2) * nout + o] = s2;
            out[(size_t)(r + 3) * nout + o] = s3;
        }
    }
    for (; r < rows; r++) {
        const double *a = in + (size_t)r * nin;
        for (int o = 0; o < nout; o++) {
            const double *wo = w + (size_t)o * nin;
            double s = bias ? bias[o] : 0.0;
            for (int i = 0; i < nin; i++)
                s += a[i] * wo[i];
            out[(size_t)r * nout + o] = s;
        }
    }
}

void gpt_attention(double *out, double *att, const double *qkv, int B, int T, int C, int H)
{
    int hs = C / H;
    double scale = 1 / sqrt((double)hs);
    for (int b = 0; b < B; b++) {
        for (int t = 0; t < T; t++) {
            const double *row = qkv + ((size_t)b * T + t) * 3 * C;
            for (int h = 0; h < H; h++) {
                const double *q = row + h * hs;
                double *w = att + (((size_t)b * H + h) * T + t) * T;
                double top = 0;
                for (int u = 0; u <= t; u++) {
                    const double *k = qkv + ((size_t)b * T + u) * 3 * C + C + h * hs;
                    double s = 0;
                    for (int i = 0; i < hs; i++)
                        s += q[i] * k[i];
                    s *= scale;
                    w[u] = s;
                    if (u == 0 || s > top)
                        top = s;
                }
                double sum = 0;
                for (int u = 0; u <= t; u++) {
                    w[u] = exp(w[u] - top);
                    sum += w[u];
                }
                for (int u = 0; u <= t; u++)
                    w[u] /= sum;
                double *o = out + ((size_t)b * T + t) * C + h * hs;
                for (int i = 0; i < hs; i++)
                    o[i] = 0;
                for (int u = 0; u <= t; u++) {
                    const double *v = qkv + ((size_t)b * T + u) * 3 * C + 2 * C + h * hs;
                    for (int i = 0; i < hs; i++)
                        o[i] += w[u] * v[i];
                }
            }
        }
    }
}

void gpt_gelu(double *out, const double *in, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        double x = in[i];
        out[i] = 0.5 * x * (1 + tanh(GPT_GELU_SCALE * (x + 0.044715 * x * x * x)));
    }
}

void gpt_add(double *out, const double *a, const double *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        out[i] = a[i] + b[i];
}

double gpt_crossentropy(const double *logits, const int *targets, int rows, int V)
{
    double loss = 0;
    for (int r = 0; r < rows; r++) {
        const double *z = logits + (size_t)r * V;
        double top = z[0];
        for (int v = 1; v < V; v++)
            if (z[v] > top)
                top = z[v];
        double sum = 0;
        for (int v = 0; v < V; v++)
            sum += exp(z[v] - top);
        loss += log(sum) + top - z[targets[r]];
    }
    return loss / rows;
}

void gpt_objective(const double *params, const int *tokens, const int *targets, int B, int T,
                   int C, int L, int H, int V, double *loss)
{
    int rows = B * T;
    size_t n = (size_t)rows * C;
    double *x = malloc(sizeof(double) * n), *xn = malloc(sizeof(double) * n);
    double *y = malloc(sizeof(double) * n), *qkv = malloc(sizeof(double) * 3 * n);
    double *hid = malloc(sizeof(double) * 4 * n), *act = malloc(sizeof(double) * 4 * n);
    double *att = malloc(sizeof(double) * B * H * T * T);
    double *logits = malloc(sizeof(double) * rows * V);
    double *mean = malloc(sizeof(double) * rows), *rstd = malloc(sizeof(double) * rows);

    gpt_embed(x, params, params + (size_t)V * C, tokens, B, T, C);
    for (int l = 0; l < L; l++) {
        const double *ln1w = params + gpt_block_offset(V, T, C, l), *ln1b = ln1w + C;
        const double *qkvw = ln1b + C, *qkvb = qkvw + 3 * (size_t)C * C;
        const double *projw = qkvb + 3 * C, *projb = projw + (size_t)C * C;
        const double *ln2w = projb + C, *ln2b = ln2w + C;
        const double *fcw = ln2b + C, *fcb = fcw + 4 * (size_t)C * C;
        const double *fcprojw = fcb + 4 * C, *fcprojb = fcprojw + 4 * (size_t)C * C;

        gpt_layernorm(xn, mean, rstd, x, ln1w, ln1b, rows, C);
        gpt_matmul(qkv, xn, qkvw, qkvb, rows, C, 3 * C);
        gpt_attention(y, att, qkv, B, T, C, H);
        gpt_matmul(xn, y, projw, projb, rows, C, C);
        gpt_add(x, x, xn, n);
        gpt_layernorm(xn, mean, rstd, x, ln2w, ln2b, rows, C);
        gpt_matmul(hid, xn, fcw, fcb, rows, C, 4 * C);
        gpt_gelu(act, hid, 4 * n);
        gpt_matmul(xn, act, fcprojw, fcprojb, rows, 4 * C, C);
        gpt_add(x, x, xn, n);
    }
    const double *lnfw = params + gpt_final_offset(V, T, C, L);
    gpt_layernorm(xn, mean, rstd, x, lnfw, lnfw + C, rows, C);
    gpt_matmul(logits, xn, params, NULL, rows, C, V);
    *loss = gpt_crossentropy(logits, targets, rows, V);

    free(x);
    free(xn);
    free(y);
    free(qkv);
    free(hid);
    free(act);
    free(att);
    free(logits);
    free(mean);
    free(rstd);
}
