// The seeds' sumAndMul: dup array, const size, out mul; the call returns d/dmul and
// accumulates d/darray into the shadow.
// tol: rel=1e-12 abs=1e-14
// grads: 6
#include <stddef.h>
#include <stdio.h>

extern int enzyme_dup, enzyme_const, enzyme_out;
double __enzyme_autodiff(void *, ...);

double sumAndMul(double *array, size_t size, double mul) {
    double sum = 0;
    for (size_t i = 0; i < size; i++) sum += array[i];
    return sum * mul;
}

int main(void) {
    double array[5] = {1.0, 2.5, -3.0, 4.25, 0.5};
    double d_array[5] = {0};
    size_t size = 5;
    double mul = 1.75;
    double d_mul = __enzyme_autodiff((void *)sumAndMul, enzyme_dup, array, d_array,
                                     enzyme_const, size, enzyme_out, mul);
    double sum = 0;
    for (int i = 0; i < 5; i++) sum += array[i];
    printf("grad d_mul %.17g %.17g\n", d_mul, sum);
    for (int i = 0; i < 5; i++) printf("grad d_array[%d] %.17g %.17g\n", i, d_array[i], mul);
    return 0;
}
