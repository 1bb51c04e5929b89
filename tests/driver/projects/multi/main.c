#include <stdio.h>
#include "vec.h"

static double helper(double x) { return x * 0.5; } /* same static name as in vec.c */

int main(void) {
    double x[8], y[8];
    for (int i = 0; i < 8; ++i) {
        x[i] = 1.0 + i * 0.25;
        y[i] = plain_scale(8.0 - i);
    }
    vec_axpy(helper(3.0), x, y, 8);
    printf("dot=%.9f\n", vec_dot(x, y, 8));
    printf("norm=%.9f\n", vec_norm(y, 8));
    printf("mean=%.9f var=%.9f\n", stat_mean(y, 8), stat_variance(y, 8));
    printf("checksum=%u calls=%d\n", plain_checksum(y, 8), vec_calls);
    return 0;
}
