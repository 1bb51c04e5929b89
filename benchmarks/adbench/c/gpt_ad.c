/* GPT gradient by reverse-mode AD of the unmodified objective. */
#include "enzyme_api.h"
#include "gpt.h"

#include <string.h>

void gpt_gradient(const double *params, const int *tokens, const int *targets, int B, int T,
                  int C, int L, int H, int V, double *d_params)
{
    double loss = 0, d_loss = 1.0;
    memset(d_params, 0, sizeof(double) * gpt_param_count(V, T, C, L));
    __enzyme_autodiff((void *)gpt_objective, enzyme_dup, params, d_params, enzyme_const, tokens,
                      enzyme_const, targets, enzyme_const, B, enzyme_const, T, enzyme_const, C,
                      enzyme_const, L, enzyme_const, H, enzyme_const, V, enzyme_dupnoneed, &loss,
                      &d_loss);
}
