/* LSTM gradient by reverse-mode AD of the unmodified lstm_objective. */
#include "enzyme_api.h"
#include "lstm.h"

#include <string.h>

void lstm_gradient(int l, int c, int b, const double *main_params, const double *extra_params,
                   const double *state, const double *sequence, double *d_main,
                   double *d_extra)
{
    double loss = 0, d_loss = 1.0;
    memset(d_main, 0, sizeof(double) * 8 * l * b);
    memset(d_extra, 0, sizeof(double) * 3 * b);
    __enzyme_autodiff((void *)lstm_objective, enzyme_const, l, enzyme_const, c, enzyme_const, b,
                      enzyme_dup, main_params, d_main, enzyme_dup, extra_params, d_extra,
                      enzyme_const, state, enzyme_const, sequence, enzyme_dupnoneed, &loss,
                      &d_loss);
}
