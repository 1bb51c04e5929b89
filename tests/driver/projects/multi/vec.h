/* A tiny vector library: built into libvec.a from `enzcc -c` objects. */
#ifndef VEC_H
#define VEC_H
#include <stddef.h>

double vec_dot(const double *a, const double *b, size_t n);
double vec_norm(const double *a, size_t n);
void vec_axpy(double alpha, const double *x, double *y, size_t n);
extern int vec_calls;

/* Statistics: built into libstat.a from `clang-22 -fembed-bitcode` objects. */
double stat_mean(const double *a, size_t n);
double stat_variance(const double *a, size_t n);

/* A plain object without bitcode. */
double plain_scale(double x);
unsigned plain_checksum(const double *a, size_t n);

/* Defined in an archive member that nothing uses: must not be linked. */
double never_used(double x);
#endif
