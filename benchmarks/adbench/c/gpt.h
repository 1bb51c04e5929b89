/* GPT: the next-token loss of a small GPT-2-style language model.
 *
 * B sequences of T tokens from a vocabulary of V; width C, L transformer
 * blocks with H attention heads each (C a multiple of H).  The model:
 *   x = wte[token] + wpe[position]
 *   per block:  x += proj(attention(layernorm1(x)))      causal, H heads
 *               x += fcproj(gelu(fc(layernorm2(x))))     width 4C
 *   logits = layernorm_f(x) wte^T                        tied embedding
 *   loss = mean over the B*T positions of -log softmax(logits)[target]
 * All parameters are one array, in this order (matrices row-major, each
 * row one output):
 *   wte V x C, wpe T x C,
 *   per block: ln1w C, ln1b C, qkvw 3C x C, qkvb 3C, projw C x C, projb C,
 *              ln2w C, ln2b C, fcw 4C x C, fcb 4C, fcprojw C x 4C, fcprojb C,
 *   lnfw C, lnfb C. */
#ifndef GPT_H
#define GPT_H

#include <stddef.h>

/* Offsets into the parameter array. */
size_t gpt_param_count(int V, int T, int C, int L);
size_t gpt_block_offset(int V, int T, int C, int l); /* block l's ln1w */
size_t gpt_block_size(int C);
size_t gpt_final_offset(int V, int T, int C, int L); /* lnfw */

void gpt_objective(const double *params, const int *tokens, const int *targets, int B, int T,
                   int C, int L, int H, int V, double *loss);

/* Gradient w.r.t. all parameters (overwritten). */
void gpt_gradient(const double *params, const int *tokens, const int *targets, int B, int T,
                  int C, int L, int H, int V, double *d_params);

/* The layers, shared by the objective and the hand-written derivative.
 * Activations are row-major with one row per position (B*T rows). */
void gpt_embed(double *x, const double *wte, const double *wpe, const int *tokens, int B, int T,
               int C);
/* out = (in - mean) * rstd * w + b per row; also writes each row's mean and rstd. */
void gpt_layernorm(double *out, double *mean, double *rstd, const double *in, const double *w,
                   const double *b, int rows, int C);
/* out[r][o] = bias[o] + sum_i in[r][i] w[o][i]; no bias when bias is NULL. */
void gpt_matmul(double *out, const double *in, const double *w, const double *bias, int rows,
                int nin, int nout);
/* Causal multi-head attention: qkv rows hold [q | k | v] (3C); att is
 * B x H x T x T, the softmax weights (entries above the diagonal unused). */
void gpt_attention(double *out, double *att, const double *qkv, int B, int T, int C, int H);
void gpt_gelu(double *out, const double *in, size_t n);
void gpt_add(double *out, const double *a, const double *b, size_t n);
/* Mean over rows of -log softmax(logits[r])[targets[r]]. */
double gpt_crossentropy(const double *logits, const int *targets, int rows, int V);

#endif
