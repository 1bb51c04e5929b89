/* Heap use of one call, for the harness's memory report (benchmarks/adbench/
 * costs.py).  Linked into a separate build of a benchmark with
 *   -Wl,--wrap=malloc -Wl,--wrap=calloc -Wl,--wrap=realloc -Wl,--wrap=free
 * so every allocation of the program, the derivative's tape included, goes
 * through these counters.  Sizes are the allocator's usable sizes, so that
 * what free returns matches what malloc took.  Single-threaded, like the
 * benchmark programs. */
#define _GNU_SOURCE
#include "adbench.h"

#include <malloc.h>

void *__real_malloc(size_t size);
void *__real_calloc(size_t count, size_t size);
void *__real_realloc(void *ptr, size_t size);
void __real_free(void *ptr);

static struct ab_heap_use heap;
static long long live;

static void *taken(void *p)
{
    if (p) {
        long long n = (long long)malloc_usable_size(p);
        heap.allocated += n;
        heap.blocks++;
        live += n;
        if (live - heap.base > heap.peak)
            heap.peak = live - heap.base;
    }
    return p;
}

static void given_back(void *p)
{
    if (p)
        live -= (long long)malloc_usable_size(p);
}

void *__wrap_malloc(size_t size)
{
    return taken(__real_malloc(size));
}

void *__wrap_calloc(size_t count, size_t size)
{
    return taken(__real_calloc(count, size));
}

void *__wrap_realloc(void *ptr, size_t size)
{
    given_back(ptr);
    return taken(__real_realloc(ptr, size));
}

void __wrap_free(void *ptr)
{
    given_back(ptr);
    __real_free(ptr);
}

void ab_heap_mark(void)
{
    heap = (struct ab_heap_use){0, 0, 0, live};
}

struct ab_heap_use ab_heap_since_mark(void)
{
    return heap;
}
