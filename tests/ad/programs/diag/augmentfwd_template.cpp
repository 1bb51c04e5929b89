// Diagnostic: split reverse mode declared as a C++ template (so the call is to a
// mangled name): the error must name __enzyme_augmentfwd, not only its mangled spelling.
#include <stdio.h>

template <typename T> extern void *__enzyme_augmentfwd(void *, T);

double cube(double x) { return x * x * x; }

int main() {
    void *tape = __enzyme_augmentfwd<double>((void *)cube, 2.0); /* DIAG-LINE */
    printf("%p\n", tape);
    return 0;
}
