/* Atomics: C11 _Atomic and <stdatomic.h> with every memory order, the GNU __atomic
   and __sync builtins, compare-exchange (weak/strong), every atomicrmw kind clang
   can emit (incl. float add/sub, min/max), fences and atomic loads/stores. */
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

static _Atomic int counter;
static atomic_long total = 0;
static _Atomic(double) energy = 0.0;
static atomic_flag lock = ATOMIC_FLAG_INIT;
static unsigned long long bits;
static int gnu_val = 5;
static _Atomic(struct pair_s { int a, b; }) pair_atomic;

static void spin_lock(void) {
    while (atomic_flag_test_and_set_explicit(&lock, memory_order_acquire))
        ;
}
static void spin_unlock(void) { atomic_flag_clear_explicit(&lock, memory_order_release); }

static int bump(int by) {
    atomic_fetch_add_explicit(&counter, by, memory_order_relaxed);
    atomic_fetch_sub_explicit(&counter, 1, memory_order_release);
    atomic_fetch_or(&counter, 0x100);
    atomic_fetch_and(&counter, 0xffff);
    atomic_fetch_xor_explicit(&counter, 0x5, memory_order_acq_rel);
    return atomic_load_explicit(&counter, memory_order_acquire);
}

static bool try_update(atomic_long *p, long expect, long want) {
    return atomic_compare_exchange_strong_explicit(p, &expect, want, memory_order_seq_cst,
                                                   memory_order_relaxed);
}

static long max_update(atomic_long *p, long v) {
    long cur = atomic_load(p);
    while (cur < v && !atomic_compare_exchange_weak(p, &cur, v))
        ;
    return cur;
}

static double add_energy(double e) {
    double old = atomic_load(&energy);
    while (!atomic_compare_exchange_weak(&energy, &old, old + e))
        ;
    return old;
}

static unsigned long long gnu_builtins(unsigned long long v) {
    unsigned long long r = 0;
    r += __atomic_fetch_nand(&bits, v, __ATOMIC_SEQ_CST);
    r += __atomic_add_fetch(&bits, 3, __ATOMIC_RELAXED);
    r += __atomic_exchange_n(&bits, v * 2, __ATOMIC_ACQ_REL);
    int expected = 5;
    if (__atomic_compare_exchange_n(&gnu_val, &expected, 9, false, __ATOMIC_SEQ_CST,
                                    __ATOMIC_SEQ_CST))
        r++;
    r += (unsigned long long)__atomic_fetch_max(&gnu_val, 12, __ATOMIC_RELAXED);
    r += (unsigned long long)__atomic_fetch_min(&gnu_val, 2, __ATOMIC_RELAXED);
    unsigned u = 7;
    r += __atomic_fetch_max(&u, 9u, __ATOMIC_RELAXED) + __atomic_fetch_min(&u, 1u, __ATOMIC_RELAXED);
    __atomic_store_n(&bits, 1, __ATOMIC_RELEASE);
    r += __atomic_load_n(&bits, __ATOMIC_CONSUME);
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    __atomic_signal_fence(__ATOMIC_ACQUIRE);
    r += __sync_fetch_and_add(&gnu_val, 1);
    r += __sync_val_compare_and_swap(&gnu_val, 14, 15);
    r += __sync_bool_compare_and_swap(&gnu_val, 15, 16);
    r += __sync_lock_test_and_set(&gnu_val, 0);
    __sync_lock_release(&gnu_val);
    __sync_synchronize();
    float f = 1.0f;
    r += (unsigned long long)__atomic_fetch_add(&f, 2.5f, __ATOMIC_RELAXED);
    r += (unsigned long long)__atomic_fetch_sub(&f, 0.5f, __ATOMIC_RELAXED);
    return r;
}

int main(int argc, char **argv) {
    (void)argv;
    spin_lock();
    int c = bump(argc);
    spin_unlock();
    bool ok = try_update(&total, 0, 10);
    long prev = max_update(&total, 25 + argc);
    double e = add_energy(1.5);
    struct pair_s pr = { 1, 2 };
    atomic_store(&pair_atomic, pr);
    struct pair_s got = atomic_load(&pair_atomic);
    atomic_thread_fence(memory_order_seq_cst);
    printf("%d %d %ld %g %llu %d %d\n", c, ok, prev, e, gnu_builtins((unsigned long long)argc),
           got.b, atomic_is_lock_free(&total));
    return 0;
}
