#include <math.h>
#include <stdio.h>
#include "poly.h"

int main(void) {
    const double c[] = {1.0, -2.0, 0.5, 3.0};
    for (int i = 0; i < 4; ++i) {
        double x = 0.5 * i;
        printf("p(%.1f)=%.6f p'(%.1f)=%.6f\n", x, poly_eval(c, 3, x), x,
               poly_deriv_eval(c, 3, x));
    }
    printf("sqrt=%.6f\n", sqrt(poly_eval(c, 3, 2.0)));
    return 0;
}
