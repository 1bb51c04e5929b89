// Templates: function and class templates, partial and full specialization,
// variadic templates and fold expressions, non-type parameters, SFINAE via
// enable_if, C++20 concepts and template recursion; many linkonce_odr instances.
#include <array>
#include <concepts>
#include <cstdio>
#include <type_traits>

template <typename T>
T clamp_to(T v, T lo, T hi) { return v < lo ? lo : hi < v ? hi : v; }

template <typename T, int N>
struct FixedVec {
    T data[N] = {};
    constexpr int size() const { return N; }
    T &operator[](int i) { return data[i]; }
    T dot(const FixedVec &o) const {
        T s{};
        for (int i = 0; i < N; i++)
            s += data[i] * o.data[i];
        return s;
    }
};

template <typename T> struct TypeName { static const char *get() { return "unknown"; } };
template <> struct TypeName<int> { static const char *get() { return "int"; } };
template <> struct TypeName<double> { static const char *get() { return "double"; } };
template <typename T> struct TypeName<T *> { static const char *get() { return "pointer"; } };

template <typename... Ts>
auto sum_all(Ts... xs) { return (xs + ... + 0); }

template <typename... Ts>
int count_args(Ts &&...) { return sizeof...(Ts); }

template <unsigned N> struct Factorial { static constexpr unsigned long value = N * Factorial<N - 1>::value; };
template <> struct Factorial<0> { static constexpr unsigned long value = 1; };

template <typename T>
typename std::enable_if<std::is_integral<T>::value, T>::type half(T x) { return x / 2; }
template <typename T>
typename std::enable_if<std::is_floating_point<T>::value, T>::type half(T x) { return x * 0.5; }

template <typename T>
concept Numeric = std::integral<T> || std::floating_point<T>;

template <Numeric T>
T mean(const T *xs, int n) {
    T s = 0;
    for (int i = 0; i < n; i++)
        s += xs[i];
    return s / static_cast<T>(n);
}

template <typename K, typename V, int Cap = 8>
class FlatMap {
public:
    bool put(const K &k, const V &v) {
        for (int i = 0; i < n_; i++)
            if (keys_[i] == k) { vals_[i] = v; return true; }
        if (n_ == Cap) return false;
        keys_[n_] = k;
        vals_[n_++] = v;
        return true;
    }
    const V *get(const K &k) const {
        for (int i = 0; i < n_; i++)
            if (keys_[i] == k) return &vals_[i];
        return nullptr;
    }
private:
    std::array<K, Cap> keys_{};
    std::array<V, Cap> vals_{};
    int n_ = 0;
};

template <typename F, typename... Args>
auto apply_twice(F f, Args... args) { return f(f(args...)); }

static int inc(int x) { return x + 1; }

int main(int argc, char **argv) {
    FixedVec<double, 3> a, b;
    for (int i = 0; i < 3; i++) { a[i] = i + argc; b[i] = 1.0 / (i + 1); }
    FixedVec<int, 4> ia;
    ia[2] = argc;
    FlatMap<int, double> fm;
    fm.put(1, 1.5);
    fm.put(argc, 2.5);
    const double *got = fm.get(1);
    double xs[3] = { 1, 2, 4 };
    int is[3] = { 3, 4, argc };
    std::printf("%d %g %d %s %s %s %d %d %lu %d %g %g %d %g %d\n", clamp_to(argc, 2, 5), a.dot(b),
                ia.dot(ia), TypeName<int>::get(), TypeName<double>::get(), TypeName<char *>::get(),
                sum_all(1, 2, argc), count_args(1, 'c', argv, 2.0), Factorial<10>::value, half(argc * 10),
                half(3.0), mean(xs, 3), mean(is, 3), got ? *got : -1.0, apply_twice(inc, argc));
    return 0;
}
