/* BA block derivatives by reverse-mode AD of the unmodified error
 * functions: one reverse sweep per output row, as ADBench and Enzyme do. */
#include "ba.h"
#include "enzyme_api.h"

#include <string.h>

void ba_reproj_block(const double *cam, const double *X, const double *w, const double *feat,
                     double block[2 * BA_BLOCK])
{
    double err[2];
    for (int row = 0; row < 2; row++) {
        double d_err[2] = {0, 0};
        double *b = &block[row * BA_BLOCK];
        d_err[row] = 1.0;
        memset(b, 0, sizeof(double) * BA_BLOCK);
        __enzyme_autodiff((void *)ba_reproj_error, enzyme_dup, cam, b, enzyme_dup, X,
                          b + BA_CAM, enzyme_dup, w, b + BA_CAM + 3, enzyme_const, feat,
                          enzyme_dupnoneed, err, d_err);
    }
}

double ba_weight_block(const double *w)
{
    double err, d_err = 1.0, d_w = 0;
    __enzyme_autodiff((void *)ba_weight_error, enzyme_dup, w, &d_w, enzyme_dupnoneed, &err,
                      &d_err);
    return d_w;
}
