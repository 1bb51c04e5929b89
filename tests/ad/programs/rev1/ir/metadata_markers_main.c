// Helper for metadata_markers.ll: calls its gradient wrappers and prints references.
#include <math.h>
#include <stdio.h>

void grad_cube_sum(const double *x, double *dx, long n);
double grad_scaled_exp(double x, double a);
void grad_two_outs(double x, double y, double *out);

int main(void) {
    double x[5] = {1.0, -0.5, 2.0, 0.3, -1.2}, dx[5] = {0};
    grad_cube_sum(x, dx, 5);
    for (int i = 0; i < 5; i++) printf("grad cube_sum.dx[%d] %.17g %.17g\n", i, dx[i], 3 * x[i] * x[i]);
    double xs = 0.7, a = -1.3;
    printf("grad scaled_exp.dx %.17g %.17g\n", grad_scaled_exp(xs, a), a * exp(xs * a));
    double xs2 = 1.9;
    printf("grad scaled_exp.dx2 %.17g %.17g\n", grad_scaled_exp(xs2, a), a * exp(xs2 * a));
    double out[2] = {0, 0}, px = 0.25, py = 4.0;
    grad_two_outs(px, py, out);
    printf("grad two_outs.dx %.17g %.17g\n", out[0], py + cos(px));
    printf("grad two_outs.dy %.17g %.17g\n", out[1], px);
    return 0;
}
