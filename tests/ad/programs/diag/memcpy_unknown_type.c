// Diagnostic: an active memcpy between untyped buffers; nothing in the differentiated
// code says whether the bytes are doubles, floats or integers, so the adjoint of the
// copy cannot be chosen: a compile-time error, never a guess.
#include <stddef.h>
#include <stdio.h>
#include <string.h>

extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);

void copy_bytes(void *dst, const void *src, size_t n) {
    memcpy(dst, src, n); /* DIAG-LINE */
}

int main(void) {
    double a[4] = {1, 2, 3, 4}, da[4] = {0}, b[4], db[4] = {1, 1, 1, 1};
    __enzyme_autodiff((void *)copy_bytes, enzyme_dup, b, db, enzyme_dup, a, da, enzyme_const,
                      sizeof a);
    printf("%g\n", da[0]);
    return 0;
}
