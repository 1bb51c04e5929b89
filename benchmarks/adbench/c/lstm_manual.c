/* Hand-written LSTM gradient: a forward pass that tapes every gate of every
 * layer and step, then the adjoint sweep backwards in time.  The hidden and
 * cell adjoints of each layer carry from step t+1 back to step t. */
#include "lstm.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Tape fields per (step, layer), each b values. */
enum { T_VIN, T_HPREV, T_CPREV, T_F, T_I, T_O, T_G, T_TANHC, T_FIELDS };

static double lstm_manual_sigmoid(double x)
{
    return 1 / (1 + exp(-x));
}

void lstm_gradient(int l, int c, int b, const double *main_params, const double *extra_params,
                   const double *state, const double *sequence, double *d_main,
                   double *d_extra)
{
    int steps = c - 1;
    size_t rec = (size_t)T_FIELDS * b;
    double *tape = malloc(sizeof(double) * rec * l * (steps > 0 ? steps : 1));
    double *ys = malloc(sizeof(double) * b * (steps > 0 ? steps : 1));
    double *lognorms = malloc(sizeof(double) * (steps > 0 ? steps : 1));
    double *st = malloc(sizeof(double) * 2 * l * b);
    double *v = malloc(sizeof(double) * b);
    double *dv = malloc(sizeof(double) * b);
    double *dstate = calloc((size_t)2 * l * b, sizeof(double)); /* per layer: dh, dc */
    const double *in_weight = extra_params, *out_weight = extra_params + b,
                 *out_bias = extra_params + 2 * b;
    memcpy(st, state, sizeof(double) * 2 * l * b);
    memset(d_main, 0, sizeof(double) * 8 * l * b);
    memset(d_extra, 0, sizeof(double) * 3 * b);

    for (int t = 0; t < steps; t++) {
        for (int k = 0; k < b; k++)
            v[k] = sequence[t * b + k] * in_weight[k];
        for (int j = 0; j < l; j++) {
            const double *w = &main_params[2 * j * 4 * b], *bias = w + 4 * b;
            double *hidden = &st[2 * j * b], *cell = hidden + b;
            double *r = &tape[((size_t)t * l + j) * rec];
            for (int k = 0; k < b; k++) {
                double f = lstm_manual_sigmoid(v[k] * w[k] + bias[k]);
                double i = lstm_manual_sigmoid(hidden[k] * w[b + k] + bias[b + k]);
                double o = lstm_manual_sigmoid(v[k] * w[2 * b + k] + bias[2 * b + k]);
                double g = tanh(hidden[k] * w[3 * b + k] + bias[3 * b + k]);
                r[T_VIN * b + k] = v[k];
                r[T_HPREV * b + k] = hidden[k];
                r[T_CPREV * b + k] = cell[k];
                r[T_F * b + k] = f;
                r[T_I * b + k] = i;
                r[T_O * b + k] = o;
                r[T_G * b + k] = g;
                cell[k] = cell[k] * f + i * g;
                double tc = tanh(cell[k]);
                r[T_TANHC * b + k] = tc;
                hidden[k] = o * tc;
                v[k] = hidden[k];
            }
        }
        double sum = 0;
        for (int k = 0; k < b; k++) {
            ys[t * b + k] = v[k] * out_weight[k] + out_bias[k];
            sum += exp(ys[t * b + k]);
        }
        lognorms[t] = log(sum + 2);
    }

    double scale = -1.0 / ((double)steps * b);
    for (int t = steps - 1; t >= 0; t--) {
        const double *next = &sequence[(t + 1) * b];
        const double *top = &tape[((size_t)t * l + l - 1) * rec];
        double dsum = 0; /* sum_k d loss / d yhat_k */
        for (int k = 0; k < b; k++)
            dsum += scale * next[k];
        for (int k = 0; k < b; k++) {
            double dy = scale * next[k] - dsum * exp(ys[t * b + k] - lognorms[t]);
            double vtop = top[T_O * b + k] * top[T_TANHC * b + k];
            d_extra[b + k] += dy * vtop;
            d_extra[2 * b + k] += dy;
            dv[k] = dy * out_weight[k];
        }
        for (int j = l - 1; j >= 0; j--) {
            const double *w = &main_params[2 * j * 4 * b];
            double *dw = &d_main[2 * j * 4 * b], *db = dw + 4 * b;
            double *dh_next = &dstate[2 * j * b], *dc_next = dh_next + b;
            const double *r = &tape[((size_t)t * l + j) * rec];
            for (int k = 0; k < b; k++) {
                double f = r[T_F * b + k], i = r[T_I * b + k], o = r[T_O * b + k],
                       g = r[T_G * b + k], tc = r[T_TANHC * b + k];
                double dh = dv[k] + dh_next[k];
                double dc = dc_next[k] + dh * o * (1 - tc * tc);
                double zf = dc * r[T_CPREV * b + k] * f * (1 - f);
                double zi = dc * g * i * (1 - i);
                double zo = dh * tc * o * (1 - o);
                double zg = dc * i * (1 - g * g);
                double vin = r[T_VIN * b + k], hprev = r[T_HPREV * b + k];
                dw[k] += zf * vin;
                dw[b + k] += zi * hprev;
                dw[2 * b + k] += zo * vin;
                dw[3 * b + k] += zg * hprev;
                db[k] += zf;
                db[b + k] += zi;
                db[2 * b + k] += zo;
                db[3 * b + k] += zg;
                dv[k] = zf * w[k] + zo * w[2 * b + k];
                dh_next[k] = zi * w[b + k] + zg * w[3 * b + k];
                dc_next[k] = dc * f;
            }
        }
        for (int k = 0; k < b; k++)
            d_extra[k] += dv[k] * sequence[t * b + k];
    }

    free(tape);
    free(ys);
    free(lognorms);
    free(st);
    free(v);
    free(dv);
    free(dstate);
}
