// std::atomic: integer and pointer atomics with explicit memory orders,
// compare_exchange loops, atomic<double>::fetch_add (C++20 atomicrmw fadd),
// atomic_flag spinlock, wait-free counters and a lock-free stack push/pop.
#include <atomic>
#include <cstdio>

struct Node {
    int value;
    Node *next;
};

class LockFreeStack {
public:
    void push(Node *n) {
        n->next = head_.load(std::memory_order_relaxed);
        while (!head_.compare_exchange_weak(n->next, n, std::memory_order_release, std::memory_order_relaxed))
            ;
    }
    Node *pop() {
        Node *h = head_.load(std::memory_order_acquire);
        while (h && !head_.compare_exchange_weak(h, h->next, std::memory_order_acq_rel))
            ;
        return h;
    }
private:
    std::atomic<Node *> head_{ nullptr };
};

class SpinLock {
public:
    void lock() {
        while (flag_.test_and_set(std::memory_order_acquire))
            ;
    }
    void unlock() { flag_.clear(std::memory_order_release); }
private:
    std::atomic_flag flag_ = ATOMIC_FLAG_INIT;
};

struct Stats {
    std::atomic<long> hits{ 0 };
    std::atomic<unsigned> mask{ 0 };
    std::atomic<double> total{ 0.0 };
    std::atomic<float> peak{ 0.0f };
    std::atomic<bool> ready{ false };
};

static void record(Stats &s, double v, unsigned bit) {
    s.hits.fetch_add(1, std::memory_order_relaxed);
    s.mask.fetch_or(1u << bit, std::memory_order_relaxed);
    s.total.fetch_add(v, std::memory_order_relaxed);
    float cur = s.peak.load();
    while (float(v) > cur && !s.peak.compare_exchange_weak(cur, float(v)))
        ;
}

static long max_atomic(std::atomic<long> &a, long v) {
    long prev = a.load(std::memory_order_relaxed);
    while (prev < v && !a.compare_exchange_strong(prev, v, std::memory_order_seq_cst))
        ;
    return prev;
}

int main(int argc, char **) {
    LockFreeStack st;
    Node nodes[5];
    for (int i = 0; i < 5; i++) {
        nodes[i].value = i * argc;
        st.push(&nodes[i]);
    }
    int popped = 0;
    while (Node *n = st.pop())
        popped += n->value;
    SpinLock lock;
    Stats s;
    lock.lock();
    for (int i = 0; i < 10; i++)
        record(s, i * 0.5 + argc, unsigned(i % 8));
    lock.unlock();
    s.ready.store(true, std::memory_order_release);
    std::atomic<long> m{ 3 };
    long before = max_atomic(m, 7 + argc);
    std::atomic<int> x{ 10 };
    int old = x.exchange(20, std::memory_order_acq_rel);
    x -= 3;
    x &= 0x1e;
    x ^= 1;
    std::atomic_thread_fence(std::memory_order_seq_cst);
    std::atomic_signal_fence(std::memory_order_acquire);
    std::printf("%d %ld %u %g %g %d %ld %d %d %d\n", popped, s.hits.load(), s.mask.load(), s.total.load(),
                double(s.peak.load()), s.ready.load(std::memory_order_acquire), before, old, x.load(),
                int(m.is_lock_free()));
    return 0;
}
