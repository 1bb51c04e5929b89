// Helper for staticlib: library member with the energy of a chain of springs.
#include "vec.h"

double spring_energy(const double *pos, const double *rest, int n, int dim, double k) {
    double e = 0;
    for (int i = 0; i + 1 < n; i++) {
        double d = vdist(pos + i * dim, pos + (i + 1) * dim, dim) - rest[i];
        e += 0.5 * k * d * d;
    }
    return e;
}
