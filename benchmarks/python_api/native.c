/* The same gradient called natively, for the Python-API benchmark: built by enzcc
 * into a shared object and timed from the same process as lib.loss.grad (alternating
 * rounds, so both see the same machine load). */
#include <string.h>
#include <time.h>

extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);
double loss(const double *x, const double *y, int n);

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}

/* Best seconds per call of: zero dx, __enzyme_autodiff(loss, x, dx, y, n). */
double native_gradient(const double *x, const double *y, double *dx, int n, int reps) {
    double best = 1e30;
    for (int r = 0; r < reps; r++) {
        double t = now();
        memset(dx, 0, sizeof(double) * (size_t)n);
        __enzyme_autodiff((void *)loss, enzyme_dup, x, dx, enzyme_const, y, enzyme_const, n);
        t = now() - t;
        best = t < best ? t : best;
    }
    return best;
}
