// Value semantics: a hand-written owning buffer with copy/move constructors and
// assignments (rule of five), noexcept moves, perfect forwarding with emplace,
// std::swap specializations, copy elision and rvalue-reference overloads.
#include <cstdio>
#include <cstring>
#include <utility>

class Buffer {
public:
    Buffer() = default;
    explicit Buffer(size_t n, char fill = 0) : data_(new char[n]), size_(n) { std::memset(data_, fill, n); }
    Buffer(const Buffer &o) : data_(o.size_ ? new char[o.size_] : nullptr), size_(o.size_) {
        if (size_) std::memcpy(data_, o.data_, size_);
        ++copies;
    }
    Buffer(Buffer &&o) noexcept : data_(std::exchange(o.data_, nullptr)), size_(std::exchange(o.size_, 0)) { ++moves; }
    Buffer &operator=(const Buffer &o) {
        if (this != &o) {
            Buffer tmp(o);
            swap(tmp);
        }
        return *this;
    }
    Buffer &operator=(Buffer &&o) noexcept {
        if (this != &o) {
            delete[] data_;
            data_ = std::exchange(o.data_, nullptr);
            size_ = std::exchange(o.size_, 0);
            ++moves;
        }
        return *this;
    }
    ~Buffer() { delete[] data_; }
    void swap(Buffer &o) noexcept {
        std::swap(data_, o.data_);
        std::swap(size_, o.size_);
    }
    size_t size() const { return size_; }
    char &operator[](size_t i) { return data_[i]; }
    static int copies, moves;
private:
    char *data_ = nullptr;
    size_t size_ = 0;
};
int Buffer::copies = 0;
int Buffer::moves = 0;

template <typename T, int Cap>
class SmallVec {
public:
    template <typename... Args>
    T &emplace(Args &&...args) {
        items_[n_] = T(std::forward<Args>(args)...);
        return items_[n_++];
    }
    void push(const T &v) { items_[n_++] = v; }
    void push(T &&v) { items_[n_++] = std::move(v); }
    T take_last() { return std::move(items_[--n_]); }
    int size() const { return n_; }
private:
    T items_[Cap];
    int n_ = 0;
};

static Buffer make_buffer(size_t n) {
    Buffer b(n, 'x');
    b[0] = 'H';
    return b;
}

static int classify(Buffer &) { return 1; }
static int classify(const Buffer &) { return 2; }
static int classify(Buffer &&) { return 3; }

template <typename T>
int forward_classify(T &&v) { return classify(std::forward<T>(v)); }

int main(int argc, char **) {
    Buffer a = make_buffer(16 + size_t(argc));
    Buffer b = a;
    Buffer c = std::move(a);
    b = c;
    c = make_buffer(4);
    SmallVec<Buffer, 4> v;
    v.push(b);
    v.push(std::move(c));
    v.emplace(size_t(8), 'z');
    Buffer last = v.take_last();
    const Buffer &cb = b;
    std::printf("%zu %zu %zu %d %d %d %d %d %d %d %c\n", a.size(), b.size(), c.size(), v.size(), Buffer::copies,
                Buffer::moves, forward_classify(b), forward_classify(cb), forward_classify(Buffer(2)),
                int(last.size()), last[0]);
    return 0;
}
