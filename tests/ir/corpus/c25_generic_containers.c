/* Type-generic C: a void*-based dynamic array and binary heap with element size and
   comparator parameters, bsearch/qsort adapters, and a ring buffer using power-of-two
   masks; lots of memcpy of runtime sizes and indirect comparator calls. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int (*cmp_fn)(const void *, const void *);

struct vec { char *data; size_t elem, len, cap; };

static int vec_push(struct vec *v, const void *item) {
    if (v->len == v->cap) {
        size_t cap = v->cap ? v->cap * 2 : 4;
        char *p = realloc(v->data, cap * v->elem);
        if (!p)
            return 0;
        v->data = p;
        v->cap = cap;
    }
    memcpy(v->data + v->len++ * v->elem, item, v->elem);
    return 1;
}

static void *vec_at(const struct vec *v, size_t i) { return v->data + i * v->elem; }

static void swap_bytes(void *a, void *b, size_t n) {
    unsigned char *x = a, *y = b;
    for (size_t i = 0; i < n; i++) {
        unsigned char t = x[i];
        x[i] = y[i];
        y[i] = t;
    }
}

static void heap_sift_down(struct vec *v, size_t i, cmp_fn cmp) {
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < v->len && cmp(vec_at(v, l), vec_at(v, m)) < 0) m = l;
        if (r < v->len && cmp(vec_at(v, r), vec_at(v, m)) < 0) m = r;
        if (m == i)
            return;
        swap_bytes(vec_at(v, i), vec_at(v, m), v->elem);
        i = m;
    }
}

static void heapify(struct vec *v, cmp_fn cmp) {
    for (size_t i = v->len / 2; i-- > 0;)
        heap_sift_down(v, i, cmp);
}

static int heap_pop(struct vec *v, void *out, cmp_fn cmp) {
    if (!v->len)
        return 0;
    memcpy(out, v->data, v->elem);
    v->len--;
    memcpy(v->data, vec_at(v, v->len), v->elem);
    heap_sift_down(v, 0, cmp);
    return 1;
}

struct job { int priority; char name[12]; double cost; };

static int by_priority(const void *a, const void *b) {
    const struct job *x = a, *y = b;
    return (x->priority > y->priority) - (x->priority < y->priority);
}

static int by_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

#define RING_SIZE 8
struct ring { int items[RING_SIZE]; unsigned head, tail; };

static int ring_push(struct ring *r, int v) {
    if (r->tail - r->head == RING_SIZE)
        return 0;
    r->items[r->tail++ & (RING_SIZE - 1)] = v;
    return 1;
}

static int ring_pop(struct ring *r, int *v) {
    if (r->tail == r->head)
        return 0;
    *v = r->items[r->head++ & (RING_SIZE - 1)];
    return 1;
}

int main(int argc, char **argv) {
    (void)argv;
    struct vec jobs = { NULL, sizeof(struct job), 0, 0 };
    for (int i = 0; i < 7 + argc; i++) {
        struct job j = { (i * 5 + 3) % 11, "job", i * 1.5 };
        j.name[3] = (char)('a' + i);
        vec_push(&jobs, &j);
    }
    heapify(&jobs, by_priority);
    struct job first;
    heap_pop(&jobs, &first, by_priority);
    double ds[6] = { 4, 1, 3, 9, 2, (double)argc };
    qsort(ds, 6, sizeof ds[0], by_double);
    double key = 3;
    double *found = bsearch(&key, ds, 6, sizeof ds[0], by_double);
    struct ring r = { { 0 }, 0, 0 };
    int pushed = 0, v = 0, sum = 0;
    for (int i = 0; i < 12; i++)
        pushed += ring_push(&r, i * argc);
    while (ring_pop(&r, &v))
        sum += v;
    printf("%d %s %zu %d %d %d\n", first.priority, first.name, jobs.len, found ? (int)(found - ds) : -1,
           pushed, sum);
    free(jobs.data);
    return 0;
}
