/* FFT: a recursive radix-2 (Cooley-Tukey) discrete Fourier transform of n
 * complex numbers (interleaved re, im; n a power of two), and the loss
 *   L(x) = (1/n) sum_k log(1 + |X_k|^2),  X = DFT(x). */
#ifndef FFT_H
#define FFT_H

/* out = DFT(in), X_k = sum_j in_j exp(-2 pi i jk / n). */
void fft_forward(const double *in, double *out, int n);

void fft_objective(const double *x, int n, double *loss);

/* Gradient w.r.t. x (overwritten), as 2n real numbers. */
void fft_gradient(const double *x, int n, double *d_x);

#endif
