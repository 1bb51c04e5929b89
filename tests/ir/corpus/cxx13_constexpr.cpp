// Compile-time programming: constexpr functions and constructors, consteval,
// constinit, if constexpr, constexpr lookup tables baked into constant globals,
// static_assert, and constexpr objects used at run time.
#include <array>
#include <cstdint>
#include <cstdio>

constexpr uint32_t crc32_entry(uint32_t i) {
    uint32_t c = i;
    for (int k = 0; k < 8; k++)
        c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
    return c;
}

constexpr std::array<uint32_t, 256> make_crc_table() {
    std::array<uint32_t, 256> t{};
    for (uint32_t i = 0; i < 256; i++)
        t[i] = crc32_entry(i);
    return t;
}

constexpr auto crc_table = make_crc_table();
static_assert(crc_table[1] == 0x77073096u, "CRC table");

static uint32_t crc32(const unsigned char *p, size_t n) {
    uint32_t c = 0xFFFFFFFFu;
    for (size_t i = 0; i < n; i++)
        c = crc_table[(c ^ p[i]) & 0xFF] ^ (c >> 8);
    return c ^ 0xFFFFFFFFu;
}

consteval int square_ce(int x) { return x * x; }

constexpr long fib(int n) {
    long a = 0, b = 1;
    for (int i = 0; i < n; i++) {
        long t = a + b;
        a = b;
        b = t;
    }
    return a;
}

struct Color {
    constexpr Color(uint8_t r, uint8_t g, uint8_t b) : r(r), g(g), b(b) {}
    constexpr uint32_t packed() const { return uint32_t(r) << 16 | uint32_t(g) << 8 | b; }
    constexpr Color blend(Color o) const { return { uint8_t((r + o.r) / 2), uint8_t((g + o.g) / 2), uint8_t((b + o.b) / 2) }; }
    uint8_t r, g, b;
};

constexpr Color palette[] = { { 255, 0, 0 }, { 0, 255, 0 }, { 0, 0, 255 }, Color(255, 0, 0).blend({ 0, 0, 255 }) };
constinit int runtime_counter = square_ce(7);

template <typename T>
constexpr T abs_any(T v) {
    if constexpr (requires { v < T{}; })
        return v < T{} ? -v : v;
    else
        return v;
}

template <typename T>
const char *describe(T) {
    if constexpr (sizeof(T) == 1) return "byte";
    else if constexpr (sizeof(T) <= 4) return "word";
    else return "wide";
}

constexpr int primes_below(int n) {
    int count = 0;
    for (int i = 2; i < n; i++) {
        bool prime = true;
        for (int d = 2; d * d <= i; d++)
            if (i % d == 0) { prime = false; break; }
        count += prime;
    }
    return count;
}
static_assert(primes_below(100) == 25);

int main(int argc, char **argv) {
    constexpr long f40 = fib(40);
    long frt = fib(20 + argc);
    runtime_counter += argc;
    const unsigned char *s = reinterpret_cast<const unsigned char *>(argv[0]);
    size_t n = 0;
    while (s[n]) n++;
    std::printf("%08x %d %ld %ld %06x %d %g %s %s %d %d\n", crc32(s, n), square_ce(12), f40, frt,
                palette[argc % 4].packed(), runtime_counter, abs_any(-2.5), describe('c'), describe(1.0),
                primes_below(50 + argc), abs_any(-argc));
    return 0;
}
