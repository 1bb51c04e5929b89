// Diagnostic: an __enzyme_allocation_like registration whose size index names no
// argument of the allocator. Using it would size shadows from garbage: the build
// must stop and say how to write the registration.
#include <stdio.h>
#include <stdlib.h>

double __enzyme_autodiff(void *, ...);

__attribute__((noinline)) void *my_alloc(size_t bytes) { return malloc(bytes); }
__attribute__((noinline)) void my_free(void *p) { free(p); }

void *__enzyme_allocation_like[4] = {(void *)my_alloc, (void *)3, (void *)"-1", (void *)my_free};

double f(double x) {
    double *m = my_alloc(sizeof *m);
    *m = x * x;
    double y = *m;
    my_free(m);
    return y;
}

int main(void) {
    printf("%g\n", __enzyme_autodiff((void *)f, 2.0));
    return 0;
}
