// Helper for staticlib: a tiny vector library.
#ifndef VEC_H
#define VEC_H
double vdist(const double *a, const double *b, int dim);
double spring_energy(const double *pos, const double *rest, int n, int dim, double k);
#endif
