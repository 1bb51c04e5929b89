#include <string.h>
#include "vec.h"

double plain_scale(double x) { return 1.5 * x - 0.25; }

unsigned plain_checksum(const double *a, size_t n) {
    unsigned h = 2166136261u;
    const unsigned char *p = (const unsigned char *)a;
    for (size_t i = 0; i < n * sizeof *a; ++i)
        h = (h ^ p[i]) * 16777619u;
    return h;
}
