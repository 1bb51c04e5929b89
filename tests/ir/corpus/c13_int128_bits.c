/* Integer corner cases: __int128 arithmetic, checked-overflow builtins (the
   *.with.overflow intrinsics), bit manipulation builtins (ctpop, ctlz, cttz, bswap,
   bitreverse, rotates via fshl/fshr), saturating patterns and odd-width _BitInt. */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>

typedef unsigned __int128 u128;
typedef __int128 i128;

static u128 mul_full(uint64_t a, uint64_t b) { return (u128)a * b; }

static uint64_t mulmod(uint64_t a, uint64_t b, uint64_t m) { return (uint64_t)(mul_full(a, b) % m); }

static i128 i128_mix(i128 a, i128 b) { return (a << 3) / (b | 1) - (a >> 65) + (a % 7); }

static int checked_ops(int a, int b, long *out) {
    int r;
    long l;
    unsigned u;
    int bad = 0;
    bad |= __builtin_add_overflow(a, b, &r);
    bad |= __builtin_mul_overflow((long)a, (long)b, &l);
    bad |= __builtin_sub_overflow((unsigned)a, (unsigned)b, &u);
    bad |= __builtin_smul_overflow(a, INT_MAX, &r);
    *out = l + r + (long)u;
    return bad;
}

static uint32_t rotl32(uint32_t x, unsigned k) { return (x << (k & 31)) | (x >> ((32 - k) & 31)); }
static uint64_t rotr64(uint64_t x, unsigned k) { return (x >> (k & 63)) | (x << ((64 - k) & 63)); }

static unsigned bit_stats(uint64_t x) {
    unsigned s = (unsigned)__builtin_popcountll(x);
    s += x ? (unsigned)__builtin_clzll(x) : 64;
    s += x ? (unsigned)__builtin_ctzll(x) : 64;
    s += (unsigned)__builtin_parityll(x);
    s += (unsigned)__builtin_ffsll((long long)x);
    s += __builtin_bswap32((uint32_t)x) & 0xff;
    s += (unsigned)(__builtin_bswap16((uint16_t)x) & 0xf);
    s += (unsigned)(__builtin_bitreverse8((uint8_t)x) & 0x3);
    s += (unsigned)__builtin_clrsb((int)x);
    return s;
}

static uint8_t sat_add_u8(uint8_t a, uint8_t b) {
    unsigned s = (unsigned)a + b;
    return s > 255 ? 255 : (uint8_t)s;
}

static int32_t sat_sub_i32(int32_t a, int32_t b) {
    int32_t r;
    if (__builtin_sub_overflow(a, b, &r))
        return a < 0 ? INT32_MIN : INT32_MAX;
    return r;
}

static _BitInt(37) odd_width(_BitInt(37) x) { return x * 3 + 1; }

static int abs_diff(int a, int b) { return a > b ? a - b : b - a; }

static unsigned long long next_pow2(unsigned long long x) {
    return x <= 1 ? 1 : 1ULL << (64 - __builtin_clzll(x - 1));
}

int main(int argc, char **argv) {
    (void)argv;
    long o;
    int bad = checked_ops(INT_MAX - argc, argc + 1, &o);
    i128 m = i128_mix((i128)argc << 70, 12345);
    u128 f = mul_full(UINT64_MAX, (uint64_t)argc + 1);
    printf("%llu %d %ld %u %llu %u %u %d %lld %d %llu %llu %d\n",
           (unsigned long long)mulmod(123456789, 987654321, 1000000007 + (uint64_t)argc), bad, o,
           rotl32(0x80000001u, (unsigned)argc), (unsigned long long)rotr64(1, (unsigned)argc),
           bit_stats(0xf0f0ull << argc), sat_add_u8(200, (uint8_t)(argc * 50)),
           sat_sub_i32(INT32_MIN, argc), (long long)odd_width(argc), abs_diff(argc, 9),
           (unsigned long long)(m >> 64), (unsigned long long)(f >> 64), (int)next_pow2(37));
    return 0;
}
