/* Memory and string operations: memcpy/memmove/memset (llvm.mem* intrinsics,
   fixed and variable sizes), struct assignment, strlen/strcmp/strchr, and a growable
   buffer with malloc/realloc/free. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct record { char name[24]; int id; double score[4]; };

struct buffer { char *data; size_t len, cap; };

static int buf_reserve(struct buffer *b, size_t extra) {
    if (b->len + extra <= b->cap)
        return 1;
    size_t cap = b->cap ? b->cap : 16;
    while (cap < b->len + extra)
        cap *= 2;
    char *p = realloc(b->data, cap);
    if (!p)
        return 0;
    b->data = p;
    b->cap = cap;
    return 1;
}

static int buf_append(struct buffer *b, const char *s) {
    size_t n = strlen(s);
    if (!buf_reserve(b, n + 1))
        return 0;
    memcpy(b->data + b->len, s, n + 1);
    b->len += n;
    return 1;
}

static void rotate_left(int *a, size_t n, size_t k) {
    if (!n)
        return;
    k %= n;
    int *tmp = malloc(k * sizeof *a);
    if (!tmp)
        return;
    memcpy(tmp, a, k * sizeof *a);
    memmove(a, a + k, (n - k) * sizeof *a);
    memcpy(a + n - k, tmp, k * sizeof *a);
    free(tmp);
}

static struct record make_record(const char *name, int id) {
    struct record r;
    memset(&r, 0, sizeof r);
    strncpy(r.name, name, sizeof r.name - 1);
    r.id = id;
    for (int i = 0; i < 4; i++)
        r.score[i] = id * 0.25 * (i + 1);
    return r;
}

static void copy_records(struct record *dst, const struct record *src, size_t n) {
    for (size_t i = 0; i < n; i++)
        dst[i] = src[i];
}

static size_t count_char(const char *s, char c) {
    size_t n = 0;
    for (const char *p = strchr(s, c); p; p = strchr(p + 1, c))
        n++;
    return n;
}

static uint32_t load_le32(const unsigned char *p) {
    uint32_t v;
    memcpy(&v, p, sizeof v);
    return v;
}

int main(int argc, char **argv) {
    struct buffer b = { 0 };
    for (int i = 0; i < argc + 3; i++)
        buf_append(&b, i ? ",item" : "item");
    int a[10] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9 };
    rotate_left(a, 10, (size_t)argc + 2);
    struct record rs[3] = { make_record("alpha", 1), make_record(argv[0], 2), make_record("gamma", 3) };
    struct record copy[3];
    copy_records(copy, rs, 3);
    char zeroed[100];
    memset(zeroed, 'z', sizeof zeroed - 1);
    zeroed[99] = 0;
    unsigned char raw[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
    printf("%zu %d %s %g %zu %d %u %zu\n", b.len, a[0], copy[0].name, copy[2].score[3],
           count_char(b.data ? b.data : "", ','), strcmp(copy[0].name, copy[2].name),
           load_le32(raw + argc % 4), strlen(zeroed));
    free(b.data);
    return 0;
}
