// Central finite differences for the OpenMP programs: `FD_CHECK(name, arr, i, grad,
// expr)` perturbs arr[i] by +-h, evaluates `expr` (the primal loss) at both points
// and prints `grad name<i> <grad> <(f+ - f-)/2h>`. h = 1e-5 relative: the losses
// are sums of hundreds of terms whose order a parallel reduction changes from run
// to run, so rounding noise (~1e-13 absolute) must stay far below h
// (the error it brings, ~1e-8, is what the programs' abs tolerance allows).
#include <math.h>
#include <stdio.h>

#define FD_CHECK(name, arr, i, grad, expr)                                           \
    do {                                                                             \
        double keep_ = (arr)[i], h_ = 1e-5 * (fabs(keep_) > 1 ? fabs(keep_) : 1);     \
        (arr)[i] = keep_ + h_;                                                       \
        double fp_ = (expr);                                                         \
        (arr)[i] = keep_ - h_;                                                       \
        double fm_ = (expr);                                                         \
        (arr)[i] = keep_;                                                            \
        printf("grad %s%d %.17g %.17g\n", name, (int)(i), (double)(grad), (fp_ - fm_) / (2 * h_)); \
    } while (0)
