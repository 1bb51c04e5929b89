/* FFT objective: out-of-place recursion on the even and odd elements, then
 * butterflies that overwrite the half-size transforms in place. */
#include "fft.h"

#include <math.h>
#include <stdlib.h>

/* Not M_PI: that needs XSI/GNU feature macros, and a single-file build may
 * have asked for strict POSIX first. */
#define FFT_PI 3.14159265358979323846

/* Transforms the n elements in[0], in[stride], ... into out[0..n). */
static void fft_recursive(const double *in, double *out, int n, int stride)
{
    if (n == 1) {
        out[0] = in[0];
        out[1] = in[1];
        return;
    }
    int h = n / 2;
    fft_recursive(in, out, h, 2 * stride);
    fft_recursive(in + 2 * stride, out + 2 * h, h, 2 * stride);
    for (int k = 0; k < h; k++) {
        double angle = -2 * FFT_PI * k / n;
        double c = cos(angle), s = sin(angle);
        double *e = &out[2 * k], *o = &out[2 * (k + h)];
        double tr = c * o[0] - s * o[1], ti = c * o[1] + s * o[0];
        double er = e[0], ei = e[1];
        e[0] = er + tr;
        e[1] = ei + ti;
        o[0] = er - tr;
        o[1] = ei - ti;
    }
}

void fft_forward(const double *in, double *out, int n)
{
    fft_recursive(in, out, n, 1);
}

void fft_objective(const double *x, int n, double *loss)
{
    double *X = malloc(sizeof(double) * 2 * n);
    fft_forward(x, X, n);
    double sum = 0;
    for (int k = 0; k < n; k++)
        sum += log(1 + X[2 * k] * X[2 * k] + X[2 * k + 1] * X[2 * k + 1]);
    *loss = sum / n;
    free(X);
}
