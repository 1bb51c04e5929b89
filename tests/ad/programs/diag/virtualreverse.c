// Diagnostic: __enzyme_virtualreverse (a function's shadow as a value) is not
// supported: the build stops at the call, naming the builtin, instead of failing
// at link time on an undefined symbol.
#include <stdio.h>

void *__enzyme_virtualreverse(void *);

double square(double x) { return x * x; }

int main(void) {
    void *shadow = __enzyme_virtualreverse((void *)square); /* DIAG-LINE */
    printf("%p\n", shadow);
    return 0;
}
