// A custom gradient registered from C (__enzyme_register_gradient_NAME): a
// straight-through rounding function whose true derivative is 0 but whose registered
// reverse rule passes the adjoint through (derivative 1), and a quantized square whose
// registered rule is 2x. A gradient that ignored the registration would be 0 there.
// tol: rel=1e-12 abs=1e-14
// grads: 6
#include <math.h>
#include <stdio.h>

extern int enzyme_out;
double __enzyme_autodiff(void *, ...);

double round_ste(double x) { return round(x * 4.0) / 4.0; }
/* no tape needed: the augmented forward returns the primal value */
double aug_round_ste(double x) { return round_ste(x); }
double rev_round_ste(double x, double d_ret) {
    (void)x;
    return d_ret;
}
void *__enzyme_register_gradient_round_ste[3] = {(void *)round_ste, (void *)aug_round_ste,
                                                 (void *)rev_round_ste};

double qsquare(double x) { return (double)(long long)(x * x * 1e9) * 1e-9; }
double aug_qsquare(double x) { return qsquare(x); }
double rev_qsquare(double x, double d_ret) { return 2.0 * x * d_ret; }
void *__enzyme_register_gradient_qsquare[3] = {(void *)qsquare, (void *)aug_qsquare,
                                               (void *)rev_qsquare};

double model(double x) { return sin(round_ste(x)) * x; }
double energy(double x) { return exp(qsquare(x)) + 3.0 * qsquare(x * 0.5); }

int main(void) {
    const double xs[] = {0.33, 1.9, -0.6};
    for (int i = 0; i < 3; i++) {
        double x = xs[i], r = round_ste(x);
        printf("grad model@%g %.17g %.17g\n", x,
               __enzyme_autodiff((void *)model, enzyme_out, x), cos(r) * x + sin(r));
        printf("grad energy@%g %.17g %.17g\n", x,
               __enzyme_autodiff((void *)energy, enzyme_out, x),
               exp(qsquare(x)) * 2 * x + 3.0 * 2 * (0.5 * x) * 0.5);
    }
    return 0;
}
