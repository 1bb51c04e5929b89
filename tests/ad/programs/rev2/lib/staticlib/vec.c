// Helper for staticlib: library member with the distance function.
#include <math.h>
#include "vec.h"

double vdist(const double *a, const double *b, int dim) {
    double s = 0;
    for (int i = 0; i < dim; i++) s += (a[i] - b[i]) * (a[i] - b[i]);
    return sqrt(s);
}
