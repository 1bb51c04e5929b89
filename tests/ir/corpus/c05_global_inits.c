/* Globals with complex initializers: nested aggregates, arrays of pointers to
   strings, pointers into the middle of other globals (getelementptr constant
   expressions), pointer differences and casts folded into constants. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct color { uint8_t r, g, b, a; };
struct style { const char *name; struct color fg, bg; int weight; double scale[2]; };

static const struct style styles[] = {
    { "plain", { 0, 0, 0, 255 }, { 255, 255, 255, 255 }, 400, { 1.0, 1.0 } },
    { "bold", { 10, 20, 30, 255 }, { 250, 250, 250, 255 }, 700, { 1.1, 0.9 } },
    { .name = "ghost", .fg.a = 128, .weight = 100 },
};

static int numbers[16] = { 1, 2, 3, 5, 8, 13, 21, 34, [15] = -1 };
int *middle = &numbers[8];
int *const ends[2] = { &numbers[0], &numbers[15] };
const struct color *second_fg = &styles[1].fg;
const char *const greetings[] = { "hello", "bonjour", "hallo", "ciao", NULL };
const char *greeting_tail = greetings[0] ? "tail" : 0;
char buffer[64] = "initialized prefix";
char *buffer_mid = buffer + 11;
const ptrdiff_t style_stride = (const char *)&styles[1] - (const char *)&styles[0];
uintptr_t numbers_addr = (uintptr_t)&numbers;
static const unsigned char blob[] = "\x01\x02\x00\xff binary\tdata";
wchar_t wide[] = L"wide string";
static float matrix[3][3] = { { 1 }, { 0, 1 }, { 0, 0, 1 } };

struct node { int value; struct node *next; };
static struct node chain[4] = {
    { 1, &chain[1] }, { 2, &chain[2] }, { 3, &chain[3] }, { 4, NULL },
};
struct node *chain_head = chain;

struct registry { int count; int (*handlers[3])(int); const struct style *style; };
static int h_double(int x) { return 2 * x; }
static int h_negate(int x) { return -x; }
static struct registry reg = { 2, { h_double, h_negate, 0 }, &styles[2] };

long long big_values[] = { 0x7fffffffffffffffLL, -0x7fffffffffffffffLL - 1, 1LL << 40 };
double specials[] = { 0.0, -0.0, 1e308, 5e-324, 1.0 / 3.0, __builtin_inf(), -__builtin_inf(),
                      __builtin_nan("") };
float fspecials[] = { 1.5f, -2.25f, 3.4e38f, 1e-45f };
_Bool truths[3] = { 1, 0, 1 };
static int zeros[1000];
int common_counter;

static int walk_chain(const struct node *n) {
    int s = 0;
    for (; n; n = n->next)
        s = s * 10 + n->value;
    return s;
}

int main(int argc, char **argv) {
    (void)argv;
    int acc = 0;
    for (int i = 0; i < reg.count; i++)
        acc += reg.handlers[i](argc + i);
    zeros[argc] = acc;
    common_counter += acc;
    printf("%s %d %d %d %s %s %td %d %u %g %d %d %g %d %d\n", styles[argc % 3].name,
           second_fg->g, *middle, *ends[1], greetings[argc % 4], buffer_mid, style_stride,
           walk_chain(chain_head), blob[1], specials[4], acc, zeros[argc],
           matrix[1][1] + fspecials[0], (int)wide[0], truths[argc % 3] + (int)(numbers_addr & 1));
    printf("%s %lld %s\n", reg.style->name, big_values[2], greeting_tail);
    return 0;
}
