/* LSTM objective: run the model over the sequence, predicting character
 * t+1 from character t, and average the log-likelihood of the true bits. */
#include "lstm.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static double lstm_sigmoid(double x)
{
    return 1 / (1 + exp(-x));
}

void lstm_objective(int l, int c, int b, const double *main_params, const double *extra_params,
                    const double *state, const double *sequence, double *loss)
{
    double *st = malloc(sizeof(double) * 2 * l * b);
    double *v = malloc(sizeof(double) * b);
    double *y = malloc(sizeof(double) * b);
    memcpy(st, state, sizeof(double) * 2 * l * b);
    const double *in_weight = extra_params, *out_weight = extra_params + b,
                 *out_bias = extra_params + 2 * b;

    double total = 0;
    for (int t = 0; t < c - 1; t++) {
        for (int k = 0; k < b; k++)
            v[k] = sequence[t * b + k] * in_weight[k];
        for (int j = 0; j < l; j++) {
            const double *w = &main_params[2 * j * 4 * b], *bias = w + 4 * b;
            double *hidden = &st[2 * j * b], *cell = hidden + b;
            for (int k = 0; k < b; k++) {
                double forget = lstm_sigmoid(v[k] * w[k] + bias[k]);
                double ingate = lstm_sigmoid(hidden[k] * w[b + k] + bias[b + k]);
                double outgate = lstm_sigmoid(v[k] * w[2 * b + k] + bias[2 * b + k]);
                double change = tanh(hidden[k] * w[3 * b + k] + bias[3 * b + k]);
                cell[k] = cell[k] * forget + ingate * change;
                hidden[k] = outgate * tanh(cell[k]);
                v[k] = hidden[k];
            }
        }
        double sum = 0;
        for (int k = 0; k < b; k++) {
            y[k] = v[k] * out_weight[k] + out_bias[k];
            sum += exp(y[k]);
        }
        double lognorm = log(sum + 2);
        for (int k = 0; k < b; k++)
            total += sequence[(t + 1) * b + k] * (y[k] - lognorm);
    }
    *loss = -total / ((double)(c - 1) * b);

    free(st);
    free(v);
    free(y);
}
