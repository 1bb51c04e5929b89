#include <math.h>
#include "vec.h"

/* Pulled only because main needs it; it needs vec_dot (another member) in turn. */
double vec_norm(const double *a, size_t n) { return sqrt(vec_dot(a, a, n)); }
