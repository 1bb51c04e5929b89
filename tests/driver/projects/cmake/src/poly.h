#ifndef POLY_H
#define POLY_H
#ifdef __cplusplus
extern "C" {
#endif
double poly_eval(const double *coef, int degree, double x);
double poly_deriv_eval(const double *coef, int degree, double x);
#ifdef __cplusplus
}
#endif
#endif
