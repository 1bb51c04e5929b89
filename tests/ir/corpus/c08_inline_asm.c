/* Inline assembly (x86-64): operand constraints, named operands, early clobbers,
   memory and flag clobbers, volatile asm, asm goto (callbr), asm labels and a
   file-scope asm block. */
#include <stdint.h>
#include <stdio.h>

__asm__(".globl enzc_asm_answer\n"
        ".type enzc_asm_answer,@function\n"
        "enzc_asm_answer:\n"
        "  movl $42, %eax\n"
        "  ret\n");
int enzc_asm_answer(void);

int renamed_function(int x) __asm__("custom_symbol_name");
int renamed_function(int x) { return x + 1; }

static inline uint64_t rdtsc_like(uint64_t seed) {
    uint64_t out;
    __asm__ volatile("lea 1(%1), %0" : "=r"(out) : "r"(seed));
    return out;
}

static inline int add_asm(int a, int b) {
    int r;
    __asm__("addl %[rhs], %[res]" : [res] "=r"(r) : "0"(a), [rhs] "rm"(b) : "cc");
    return r;
}

static inline uint32_t bswap_asm(uint32_t x) {
    __asm__("bswap %0" : "+r"(x));
    return x;
}

static inline void copy_bytes(void *dst, const void *src, unsigned long n) {
    __asm__ volatile("rep movsb" : "+D"(dst), "+S"(src), "+c"(n) : : "memory");
}

static inline int mul_hi(uint64_t a, uint64_t b, uint64_t *lo) {
    uint64_t hi;
    __asm__("mulq %3" : "=a"(*lo), "=&d"(hi) : "a"(a), "rm"(b) : "cc");
    return (int)(hi & 0xff);
}

static int check_positive(long v) {
    __asm__ goto("test %0, %0\n\tjle %l[negative]" : : "r"(v) : "cc" : negative);
    return 1;
negative:
    return 0;
}

static inline void compiler_barrier(void) { __asm__ __volatile__("" ::: "memory"); }

static double sqrt_asm(double x) {
    double r;
    __asm__("sqrtsd %1, %0" : "=x"(r) : "x"(x));
    return r;
}

int main(int argc, char **argv) {
    (void)argv;
    char src[16] = "assembly!";
    char dst[16] = { 0 };
    copy_bytes(dst, src, 10);
    uint64_t lo;
    int hi = mul_hi(0xfedcba9876543210ULL, (uint64_t)argc << 60, &lo);
    compiler_barrier();
    printf("%d %d %llu %d %x %s %d %llu %d %g\n", enzc_asm_answer(), renamed_function(argc),
           (unsigned long long)rdtsc_like((uint64_t)argc), add_asm(argc, 40), bswap_asm(0x11223344u),
           dst, hi, (unsigned long long)lo, check_positive(argc - 2), sqrt_asm(2.0 * argc));
    return 0;
}
