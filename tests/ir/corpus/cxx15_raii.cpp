// RAII and cleanups: lock guards, scope guards with lambdas, nested objects whose
// destructors run on every exit path (return, break, exception), arrays of
// objects, temporaries' lifetime extension and static objects with destructors
// (__cxa_atexit).
#include <cstdio>
#include <cstdlib>
#include <utility>

static int events[64];
static int nevents;
static void record(int e) {
    if (nevents < 64)
        events[nevents++] = e;
}

struct Guard {
    explicit Guard(int id) : id(id) { record(id); }
    Guard(Guard &&o) noexcept : id(std::exchange(o.id, 0)) {}
    ~Guard() {
        if (id)
            record(-id);
    }
    int id;
};

template <typename F>
class ScopeExit {
public:
    explicit ScopeExit(F f) : f_(std::move(f)) {}
    ~ScopeExit() {
        if (active_)
            f_();
    }
    void dismiss() { active_ = false; }
private:
    F f_;
    bool active_ = true;
};

struct Buffer {
    explicit Buffer(size_t n) : data(static_cast<char *>(std::malloc(n))), size(n) {}
    ~Buffer() { std::free(data); }
    Buffer(const Buffer &) = delete;
    char *data;
    size_t size;
};

static Guard global_guard(1000);

static int early_returns(int x) {
    Guard a(1);
    if (x == 0)
        return 0;
    Guard b(2);
    for (int i = 0; i < 5; i++) {
        Guard loop(10 + i);
        if (i == x)
            break;
        if (i == 3)
            return 3;
    }
    Guard c(3);
    return x;
}

static int may_fail(int x) {
    if (x > 3) {
#if defined(__cpp_exceptions)
        throw x;
#else
        return -x;
#endif
    }
    return x;
}

static int with_scope_exit(int x) {
    int cleaned = 0;
    {
        ScopeExit on_exit([&] { cleaned++; record(99); });
        ScopeExit never([&] { cleaned += 100; });
        never.dismiss();
        Buffer buf(64);
        buf.data[0] = char(x);
        Guard g(20);
#if defined(__cpp_exceptions)
        try {
            may_fail(x);
        } catch (int v) {
            record(v);
        }
#else
        record(may_fail(x));
#endif
    }
    return cleaned;
}

static Guard make_guard(int id) { return Guard(id); }

int main(int argc, char **) {
    int r1 = early_returns(argc);
    int r2 = early_returns(7);
    int r3 = with_scope_exit(argc + 3);
    {
        const Guard &extended = make_guard(50);
        Guard arr[3] = { Guard(60), Guard(61), Guard(62) };
        record(extended.id + arr[2].id);
    }
    static Guard local_static(2000);
    std::printf("%d %d %d %d %d %d\n", r1, r2, r3, nevents, events[nevents - 1], local_static.id);
    return 0;
}
