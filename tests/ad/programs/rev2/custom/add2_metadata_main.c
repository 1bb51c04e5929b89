// Helper for add2_metadata.ll: d/dx x (x^2 + 2) = 3x^2 + 2.
#include <stdio.h>

double grad_tester(double x);

int main(void) {
    const double xs[] = {1.5, -0.4, 3.0};
    for (int i = 0; i < 3; i++)
        printf("grad tester@%g %.17g %.17g\n", xs[i], grad_tester(xs[i]), 3 * xs[i] * xs[i] + 2);
    return 0;
}
