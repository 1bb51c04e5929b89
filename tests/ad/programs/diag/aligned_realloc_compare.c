// Diagnostic: a block aligned by integer arithmetic and reallocated the way Eigen's
// handmade_aligned_realloc does it: realloc the raw block, align again, and move
// the data if the aligned start moved. The shadow block is aligned by the same
// arithmetic but sits elsewhere, so "has the aligned start moved?" may come out
// differently for it, and the derivative follows the primal's answer: the build
// stops at the comparison. (Aligned blocks that are only allocated, used and
// freed differentiate: rev2/heap/aligned_by_integers.c.)
#include <math.h>
#include <stdint.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);
static double *aligned_malloc(size_t bytes) {
    void *raw = malloc(bytes + 64);
    double *aligned = (double *)(((uintptr_t)raw & ~(uintptr_t)63) + 64);
    ((void **)aligned)[-1] = raw;
    return aligned;
}
static double *aligned_realloc(double *ptr, size_t bytes) {
    void *original = ((void **)ptr)[-1];
    ptrdiff_t previous_offset = (char *)ptr - (char *)original;
    original = realloc(original, bytes + 64);
    double *aligned = (double *)(((uintptr_t)original & ~(uintptr_t)63) + 64);
    double *previous_aligned = (double *)((char *)original + previous_offset);
    if (aligned != previous_aligned) /* DIAG-LINE */ for (size_t i = 0; i < bytes / 8; i++) aligned[i] = previous_aligned[i];
    ((void **)aligned)[-1] = original;
    return aligned;
}
double f(const double *x) {
  double *v = aligned_malloc(3 * 8);
  for (int i = 0; i < 3; i++) v[i] = x[i] * x[i];
  for (int k = 4; k < 40; k += 3) { v = aligned_realloc(v, k * 8); for (int i = k - 3; i < k; i++) v[i] = sin(x[i % 3] + i); }
  double s = 0; for (int i = 0; i < 39; i++) s += v[i] * v[i];
  free(((void **)v)[-1]);
  return s;
}
int main() { double x[3] = {0.3, 0.7, -0.4}, dx[3] = {0}; __enzyme_autodiff((void*)f, enzyme_dup, x, dx);
  for (int i = 0; i < 3; i++) { double a[3], b[3]; memcpy(a, x, 24); memcpy(b, x, 24); a[i] += 1e-6; b[i] -= 1e-6; printf("%d %.10g %.10g\n", i, dx[i], (f(a) - f(b)) / 2e-6); } }
