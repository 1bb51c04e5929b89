/* A string-keyed hash table with chaining: pointer-to-pointer updates, FNV-1a
   hashing, resizing, iteration and deletion; typical systems C. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct entry { char *key; int value; struct entry *next; };
struct table { struct entry **slots; size_t nslots, count; };

static uint64_t fnv1a(const char *s) {
    uint64_t h = 1469598103934665603ULL;
    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= 1099511628211ULL;
    }
    return h;
}

static int table_init(struct table *t, size_t n) {
    t->slots = calloc(n, sizeof *t->slots);
    t->nslots = n;
    t->count = 0;
    return t->slots != NULL;
}

static void table_grow(struct table *t) {
    struct table bigger;
    if (!table_init(&bigger, t->nslots * 2))
        return;
    for (size_t i = 0; i < t->nslots; i++) {
        struct entry *e = t->slots[i];
        while (e) {
            struct entry *next = e->next;
            size_t j = fnv1a(e->key) % bigger.nslots;
            e->next = bigger.slots[j];
            bigger.slots[j] = e;
            e = next;
        }
    }
    free(t->slots);
    bigger.count = t->count;
    *t = bigger;
}

static int *table_put(struct table *t, const char *key, int value) {
    if (t->count * 4 >= t->nslots * 3)
        table_grow(t);
    struct entry **pp = &t->slots[fnv1a(key) % t->nslots];
    for (; *pp; pp = &(*pp)->next)
        if (strcmp((*pp)->key, key) == 0) {
            (*pp)->value = value;
            return &(*pp)->value;
        }
    struct entry *e = malloc(sizeof *e);
    if (!e)
        return NULL;
    e->key = strdup(key);
    e->value = value;
    e->next = NULL;
    *pp = e;
    t->count++;
    return &e->value;
}

static int table_get(const struct table *t, const char *key, int fallback) {
    for (const struct entry *e = t->slots[fnv1a(key) % t->nslots]; e; e = e->next)
        if (strcmp(e->key, key) == 0)
            return e->value;
    return fallback;
}

static int table_remove(struct table *t, const char *key) {
    struct entry **pp = &t->slots[fnv1a(key) % t->nslots];
    while (*pp) {
        struct entry *e = *pp;
        if (strcmp(e->key, key) == 0) {
            *pp = e->next;
            free(e->key);
            free(e);
            t->count--;
            return 1;
        }
        pp = &e->next;
    }
    return 0;
}

static void table_free(struct table *t) {
    for (size_t i = 0; i < t->nslots; i++)
        while (t->slots[i]) {
            struct entry *e = t->slots[i];
            t->slots[i] = e->next;
            free(e->key);
            free(e);
        }
    free(t->slots);
}

int main(int argc, char **argv) {
    struct table t;
    if (!table_init(&t, 4))
        return 1;
    const char *words[] = { "the", "quick", "brown", "fox", "jumps", "over", "the", "lazy", "dog", argv[0] };
    for (int i = 0; i < 10; i++)
        table_put(&t, words[i], table_get(&t, words[i], 0) + 1);
    char key[16];
    for (int i = 0; i < 20 * argc; i++) {
        snprintf(key, sizeof key, "k%d", i);
        table_put(&t, key, i);
    }
    int removed = table_remove(&t, "fox") + table_remove(&t, "cat");
    printf("%zu %zu %d %d %d\n", t.count, t.nslots, table_get(&t, "the", -1), table_get(&t, "k7", -1), removed);
    table_free(&t);
    return 0;
}
