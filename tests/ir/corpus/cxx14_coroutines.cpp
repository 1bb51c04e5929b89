// C++20 coroutines: a generator<T> with co_yield, a lazily-started task with
// co_return and co_await of another coroutine; exercises the llvm.coro.* lowering
// (frames, resume/destroy functions, switch-based suspend points).
#include <coroutine>
#include <cstdio>
#include <exception>
#include <utility>

template <typename T>
class Generator {
public:
    struct promise_type {
        T current{};
        Generator get_return_object() { return Generator{ std::coroutine_handle<promise_type>::from_promise(*this) }; }
        std::suspend_always initial_suspend() noexcept { return {}; }
        std::suspend_always final_suspend() noexcept { return {}; }
        std::suspend_always yield_value(T v) noexcept { current = v; return {}; }
        void return_void() noexcept {}
        void unhandled_exception() { std::terminate(); }
    };
    explicit Generator(std::coroutine_handle<promise_type> h) : h_(h) {}
    Generator(Generator &&o) noexcept : h_(std::exchange(o.h_, {})) {}
    ~Generator() { if (h_) h_.destroy(); }
    bool next() { h_.resume(); return !h_.done(); }
    T value() const { return h_.promise().current; }
private:
    std::coroutine_handle<promise_type> h_;
};

class Task {
public:
    struct promise_type {
        int result = 0;
        std::coroutine_handle<> continuation;
        Task get_return_object() { return Task{ std::coroutine_handle<promise_type>::from_promise(*this) }; }
        std::suspend_always initial_suspend() noexcept { return {}; }
        struct FinalAwaiter {
            bool await_ready() noexcept { return false; }
            std::coroutine_handle<> await_suspend(std::coroutine_handle<promise_type> h) noexcept {
                auto c = h.promise().continuation;
                return c ? c : std::noop_coroutine();
            }
            void await_resume() noexcept {}
        };
        FinalAwaiter final_suspend() noexcept { return {}; }
        void return_value(int v) noexcept { result = v; }
        void unhandled_exception() { std::terminate(); }
    };
    explicit Task(std::coroutine_handle<promise_type> h) : h_(h) {}
    Task(Task &&o) noexcept : h_(std::exchange(o.h_, {})) {}
    ~Task() { if (h_) h_.destroy(); }
    bool await_ready() const noexcept { return false; }
    std::coroutine_handle<> await_suspend(std::coroutine_handle<> awaiting) noexcept {
        h_.promise().continuation = awaiting;
        return h_;
    }
    int await_resume() const noexcept { return h_.promise().result; }
    int run() { h_.resume(); return h_.promise().result; }
private:
    std::coroutine_handle<promise_type> h_;
};

static Generator<long> fibonacci(int n) {
    long a = 0, b = 1;
    for (int i = 0; i < n; i++) {
        co_yield a;
        long t = a + b;
        a = b;
        b = t;
    }
}

static Generator<int> range(int lo, int hi, int step) {
    for (int i = lo; i < hi; i += step)
        co_yield i;
}

static Task square_task(int x) { co_return x * x; }

static Task sum_of_squares(int n) {
    int s = 0;
    for (int i = 1; i <= n; i++)
        s += co_await square_task(i);
    co_return s;
}

int main(int argc, char **) {
    long last = 0;
    int count = 0;
    auto fib = fibonacci(10 + argc);
    while (fib.next()) {
        last = fib.value();
        count++;
    }
    int rsum = 0;
    auto r = range(0, 20, 3 + argc);
    while (r.next())
        rsum += r.value();
    Task t = sum_of_squares(5 + argc);
    std::printf("%ld %d %d %d\n", last, count, rsum, t.run());
    return 0;
}
