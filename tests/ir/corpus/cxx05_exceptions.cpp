// Exceptions: throw/try/catch by reference and by value, an exception hierarchy,
// rethrow, catch(...), nested try blocks, noexcept and cleanups of locals during
// unwinding (invoke, landingpad, resume, __cxa_* calls). Built with -fno-exceptions
// the same program falls back to error codes, as portable libraries do.
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

#if defined(__cpp_exceptions)
#define RAISE(e) throw e
#else
#define RAISE(e) (std::fprintf(stderr, "fatal: %s\n", #e), std::abort())
#endif

class ParseError : public std::runtime_error {
public:
    ParseError(const char *what, int pos) : std::runtime_error(what), pos_(pos) {}
    int pos() const noexcept { return pos_; }
private:
    int pos_;
};

class Tracer {
public:
    explicit Tracer(const char *n) : name_(n) { ++depth; }
    ~Tracer() { --depth; last = name_; }
    static int depth;
    static const char *last;
private:
    const char *name_;
};
int Tracer::depth = 0;
const char *Tracer::last = "";

static int parse_digit(char c, int pos) {
    Tracer t("parse_digit");
    (void)pos;
    if (c < '0' || c > '9')
        RAISE(ParseError("not a digit", pos));
    return c - '0';
}

static int parse_number(const char *s) {
    Tracer t("parse_number");
    int v = 0;
    for (int i = 0; s[i]; i++) {
        v = v * 10 + parse_digit(s[i], i);
        if (v > 100000)
            RAISE(std::overflow_error("number too large"));
    }
    return v;
}

#if !defined(__cpp_exceptions)
static bool valid_number(const char *s) {
    int n = 0;
    for (; s[n]; n++)
        if (s[n] < '0' || s[n] > '9' || n > 5)
            return false;
    return true;
}
#endif

static int checked(const char *s) {
#if defined(__cpp_exceptions)
    try {
        return parse_number(s);
    } catch (const ParseError &e) {
        std::printf("parse error at %d: %s\n", e.pos(), e.what());
        return -2;
    } catch (const std::exception &e) {
        std::printf("other error: %s\n", e.what());
        return -3;
    }
#else
    return valid_number(s) ? parse_number(s) : -2;
#endif
}

static int rethrowing(const char *s) {
#if defined(__cpp_exceptions)
    try {
        try {
            return parse_number(s);
        } catch (std::runtime_error &) {
            Tracer t("handler");
            throw;
        }
    } catch (...) {
        return -4;
    }
#else
    return valid_number(s) ? parse_number(s) : -4;
#endif
}

struct Resource {
    explicit Resource(int n) : n(n) {
        if (n < 0)
            RAISE(std::invalid_argument("negative resource"));
    }
    ~Resource() { ++released; }
    int n;
    static int released;
};
int Resource::released = 0;

static int make_resources(int a, int b) noexcept {
#if defined(__cpp_exceptions)
    try {
        Resource x(a), y(b);
        return x.n + y.n;
    } catch (const std::invalid_argument &) {
        return -5;
    }
#else
    if (a < 0 || b < 0)
        return -5;
    Resource x(a), y(b);
    return x.n + y.n;
#endif
}

static int throws_int(int x) {
    if (x > 2)
        RAISE(x * 10);
    return x;
}

static int catch_int(int x) {
#if defined(__cpp_exceptions)
    try {
        return throws_int(x);
    } catch (int v) {
        return v;
    }
#else
    return x > 2 ? x * 10 : throws_int(x);
#endif
}

int main(int argc, char **argv) {
    int a = checked("1234");
    int b = checked("12x4");
    int c = checked("99999999");
    int d = rethrowing(argc > 1 ? argv[1] : "77");
    int e = rethrowing("abc");
    int f = make_resources(1, -argc);
    int g = catch_int(argc + 2);
    std::printf("%d %d %d %d %d %d %d %d %s %d\n", a, b, c, d, e, f, g, Tracer::depth, Tracer::last,
                Resource::released);
    return 0;
}
