/* Structs, unions, bit-fields and packed layouts: the aggregate types clang lowers
   to named struct types, byte arrays and shift/mask sequences. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

struct point { double x, y; };
struct rect { struct point lo, hi; const char *name; };

struct flags {
    unsigned ready : 1;
    unsigned mode : 3;
    signed level : 5;
    unsigned : 0;
    unsigned long long big : 40;
    _Bool done : 1;
};

struct __attribute__((packed)) wire_header {
    uint8_t kind;
    uint32_t length;
    uint16_t checksum;
    int64_t stamp;
};

union number {
    int64_t i;
    double d;
    uint8_t bytes[8];
    struct { uint32_t lo, hi; } half;
};

struct tagged {
    enum { T_INT, T_REAL, T_TEXT } tag;
    union { long i; double r; const char *s; } as;
};

struct with_flex { int n; double data[]; };

static double rect_area(struct rect r) {
    return (r.hi.x - r.lo.x) * (r.hi.y - r.lo.y);
}

static struct point midpoint(const struct rect *r) {
    struct point p = { (r->lo.x + r->hi.x) / 2, (r->lo.y + r->hi.y) / 2 };
    return p;
}

static unsigned pack_flags(struct flags *f, int level) {
    f->ready = 1;
    f->mode = (unsigned)level & 7;
    f->level = level - 8;
    f->big = 0x12345678ULL * (unsigned)level;
    f->done = level > 3;
    return f->mode + (unsigned)f->level + (unsigned)(f->big >> 20) + f->done;
}

static uint16_t header_sum(const struct wire_header *h) {
    const uint8_t *p = (const uint8_t *)h;
    uint16_t s = 0;
    for (size_t i = 0; i < sizeof *h; i++)
        s = (uint16_t)(s * 31 + p[i]);
    return s;
}

static double tagged_value(const struct tagged *t) {
    switch (t->tag) {
    case T_INT: return (double)t->as.i;
    case T_REAL: return t->as.r;
    case T_TEXT: return (double)strlen(t->as.s);
    }
    return 0;
}

int main(int argc, char **argv) {
    (void)argv;
    struct rect r = { { 0, 0 }, { 3.5, 2.0 + argc }, "box" };
    struct point m = midpoint(&r);
    struct flags f = { 0 };
    unsigned pf = pack_flags(&f, argc + 4);
    struct wire_header h = { 2, 1024, 0, -1 };
    h.checksum = header_sum(&h);
    union number n;
    n.d = 1.5 * argc;
    uint32_t mix = n.half.lo ^ n.half.hi ^ n.bytes[7];
    struct tagged ts[3] = { { T_INT, { .i = 42 } }, { T_REAL, { .r = 2.5 } },
                            { T_TEXT, { .s = "hello" } } };
    double total = 0;
    for (int i = 0; i < 3; i++)
        total += tagged_value(&ts[i]);
    struct with_flex *wf = __builtin_alloca(sizeof *wf + 4 * sizeof(double));
    wf->n = 4;
    for (int i = 0; i < wf->n; i++)
        wf->data[i] = i * m.x;
    printf("%s %g %g %u %u %u %g %g %zu\n", r.name, rect_area(r), m.y, pf, h.checksum,
           mix, total, wf->data[3], sizeof(struct wire_header));
    return 0;
}
