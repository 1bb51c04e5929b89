// Namespaces and initialization: nested and anonymous namespaces, inline
// variables, dynamic initialization of globals (_GLOBAL__sub_I_ init functions),
// function-local statics with thread-safe guards (__cxa_guard_*), thread_local
// objects with dynamic init (TLS wrapper/init functions) and static members.
#include <cmath>
#include <cstdio>
#include <cstring>

namespace geometry::units {
inline constexpr double pi = 3.141592653589793;
inline int conversions = 0;
inline double deg_to_rad(double d) { ++conversions; return d * pi / 180; }
} // namespace geometry::units

namespace {
struct Registry {
    Registry() : count(0) { std::strcpy(name, "default"); }
    int add(const char *n) {
        std::strncpy(name, n, sizeof name - 1);
        return ++count;
    }
    char name[16];
    int count;
};
Registry registry; // dynamically initialized
int helper(int x) { return x * 3; }
} // namespace

double table_of_sines[4] = { std::sin(0.1), std::sin(0.2), std::sin(0.3), std::sin(0.4) };
const int computed_at_startup = helper(14);

class Config {
public:
    static Config &instance() {
        static Config cfg; // guarded local static
        return cfg;
    }
    int verbosity = 1;
    static const int kMaxLevel = 5;
    static int created;
private:
    Config() { ++created; }
};
int Config::created = 0;

struct PerThread {
    PerThread() : calls(0), scratch(new double[8]) {}
    ~PerThread() { delete[] scratch; }
    int calls;
    double *scratch;
};
thread_local PerThread per_thread;
thread_local int tl_plain = 5;

static int next_id() {
    static int id = helper(1); // dynamic local static
    return id++;
}

namespace outer {
namespace inner {
template <typename T> T twice(T x) { return x + x; }
}
using inner::twice;
} // namespace outer

int main(int argc, char **argv) {
    Config::instance().verbosity += argc;
    per_thread.calls++;
    per_thread.scratch[0] = geometry::units::deg_to_rad(90);
    tl_plain += argc;
    int id = registry.add(argv[0]);
    next_id();
    std::printf("%d %d %g %d %d %d %g %d %d %d %d\n", Config::instance().verbosity, Config::created,
                per_thread.scratch[0], tl_plain, id, next_id(), table_of_sines[argc % 4], computed_at_startup,
                outer::twice(argc), geometry::units::conversions, Config::kMaxLevel);
    return 0;
}
