// Static polymorphism: CRTP base classes, mixins, policy-based design, tag
// dispatch and expression templates for lazy vector arithmetic.
#include <cstdio>

template <typename Derived>
struct Comparable {
    friend bool operator!=(const Derived &a, const Derived &b) { return !(a == b); }
    friend bool operator>(const Derived &a, const Derived &b) { return b < a; }
    friend bool operator<=(const Derived &a, const Derived &b) { return !(b < a); }
};

struct Version : Comparable<Version> {
    int major, minor;
    Version(int a, int b) : major(a), minor(b) {}
    bool operator==(const Version &o) const { return major == o.major && minor == o.minor; }
    bool operator<(const Version &o) const { return major < o.major || (major == o.major && minor < o.minor); }
};

template <typename Derived>
struct Counted {
    Counted() { ++count; }
    Counted(const Counted &) { ++count; }
    ~Counted() { --count; }
    static inline int count = 0;
};

struct Widget : Counted<Widget> { int w = 1; };
struct Gadget : Counted<Gadget> { double g = 2; };

struct LinearGrowth { static int next(int cap) { return cap + 8; } };
struct DoublingGrowth { static int next(int cap) { return cap ? cap * 2 : 4; } };
struct NoCheck { static bool ok(int, int) { return true; } };
struct BoundsCheck { static bool ok(int i, int n) { return i >= 0 && i < n; } };

template <typename T, typename Growth = DoublingGrowth, typename Check = NoCheck>
class Stack {
public:
    ~Stack() { delete[] data_; }
    void push(T v) {
        if (n_ == cap_) {
            int cap = Growth::next(cap_);
            T *d = new T[cap];
            for (int i = 0; i < n_; i++)
                d[i] = data_[i];
            delete[] data_;
            data_ = d;
            cap_ = cap;
        }
        data_[n_++] = v;
    }
    T at(int i) const { return Check::ok(i, n_) ? data_[i] : T(); }
    int size() const { return n_; }
    int capacity() const { return cap_; }
private:
    T *data_ = nullptr;
    int n_ = 0, cap_ = 0;
};

template <typename E>
struct Expr {
    const E &self() const { return static_cast<const E &>(*this); }
    double operator[](int i) const { return self()[i]; }
};

struct Vec : Expr<Vec> {
    double d[6];
    double operator[](int i) const { return d[i]; }
    template <typename E>
    Vec &operator=(const Expr<E> &e) {
        for (int i = 0; i < 6; i++)
            d[i] = e.self()[i];
        return *this;
    }
};

template <typename L, typename R>
struct Sum : Expr<Sum<L, R>> {
    const L &l; const R &r;
    Sum(const L &a, const R &b) : l(a), r(b) {}
    double operator[](int i) const { return l[i] + r[i]; }
};
template <typename L, typename R>
struct Prod : Expr<Prod<L, R>> {
    const L &l; const R &r;
    Prod(const L &a, const R &b) : l(a), r(b) {}
    double operator[](int i) const { return l[i] * r[i]; }
};
template <typename L, typename R> Sum<L, R> operator+(const Expr<L> &a, const Expr<R> &b) { return { a.self(), b.self() }; }
template <typename L, typename R> Prod<L, R> operator*(const Expr<L> &a, const Expr<R> &b) { return { a.self(), b.self() }; }

struct random_access_tag {};
struct forward_tag {};
template <typename It> int advance_cost(It, random_access_tag) { return 1; }
template <typename It> int advance_cost(It, forward_tag) { return 10; }

int main(int argc, char **) {
    Version a(1, argc), b(1, 3);
    Widget w1, w2;
    Gadget g1;
    int live = Widget::count * 10 + Gadget::count;
    Stack<int> s1;
    Stack<double, LinearGrowth, BoundsCheck> s2;
    for (int i = 0; i < 20 + argc; i++) {
        s1.push(i);
        s2.push(i * 0.5);
    }
    Vec x, y, z;
    for (int i = 0; i < 6; i++) { x.d[i] = i; y.d[i] = 2 + argc; }
    z = x * y + x;
    std::printf("%d %d %d %d %d %d %g %d %g %d\n", a != b, a > b, a <= b, live, s1.capacity(), s2.capacity(),
                s2.at(-1), s1.at(5), z[5], advance_cost(0, random_access_tag{}) + advance_cost(0, forward_tag{}));
    return w1.w + g1.g > 100 ? 1 : 0 * w2.w;
}
