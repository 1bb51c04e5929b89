// Helper for global_shadow.ll: sets the global state, takes gradients, prints references.
#include <math.h>
#include <stdio.h>

extern double state, d_state;
double grad_step(double x);

int main(void) {
    const double s0s[] = {1.5, -0.25, 0.0};
    const double xs[] = {0.8, 2.0, -1.1};
    for (int i = 0; i < 3; i++) {
        double s0 = s0s[i], x = xs[i];
        state = s0;
        d_state = 0.0;
        double dx = grad_step(x);
        double s1 = s0 * x + sin(x);
        printf("grad dx#%d %.17g %.17g\n", i, dx, 2 * s1 * (s0 + cos(x)));
        printf("grad d_state#%d %.17g %.17g\n", i, d_state, 2 * s1 * x);
        if (state != s1) return 2; /* the forward pass updated the primal global */
    }
    return 0;
}
