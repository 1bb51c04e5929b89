/* LSTM: ADBench's diagonal (element-wise) LSTM language-model loss.
 * main_params: 2l rows of 4b (row 2j weights, row 2j+1 biases; blocks
 * forget, input gate, output gate, change); extra_params: 3 rows of b
 * (input weight, output weight, output bias); state: 2l rows of b (hidden,
 * cell per layer), copied, not modified; sequence: c rows of b bits. */
#ifndef LSTM_H
#define LSTM_H

void lstm_objective(int l, int c, int b, const double *main_params, const double *extra_params,
                    const double *state, const double *sequence, double *loss);

/* Gradient w.r.t. main_params and extra_params (overwritten). */
void lstm_gradient(int l, int c, int b, const double *main_params, const double *extra_params,
                   const double *state, const double *sequence, double *d_main,
                   double *d_extra);

#endif
