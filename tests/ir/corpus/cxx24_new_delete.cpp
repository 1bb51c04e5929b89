// Dynamic memory in C++: class-specific operator new/delete, placement new into a
// pool, over-aligned types (aligned new), new[]/delete[] with non-trivial
// destructors (array cookies), nothrow new and sized deallocation.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <new>

struct Tracked {
    static void *operator new(std::size_t n) {
        ++allocs;
        return std::malloc(n);
    }
    static void operator delete(void *p, std::size_t) noexcept {
        ++frees;
        std::free(p);
    }
    static void *operator new[](std::size_t n) {
        ++allocs;
        return std::malloc(n);
    }
    static void operator delete[](void *p) noexcept {
        ++frees;
        std::free(p);
    }
    Tracked() : v(++made) {}
    ~Tracked() { ++destroyed; }
    int v;
    static int allocs, frees, made, destroyed;
};
int Tracked::allocs, Tracked::frees, Tracked::made, Tracked::destroyed;

struct alignas(64) CacheLine {
    double values[8];
    long tag;
};

class Pool {
public:
    void *allocate(std::size_t n, std::size_t align) {
        std::size_t off = (used_ + align - 1) & ~(align - 1);
        if (off + n > sizeof storage_)
            return nullptr;
        used_ = off + n;
        return storage_ + off;
    }
    std::size_t used() const { return used_; }
private:
    alignas(64) unsigned char storage_[1024];
    std::size_t used_ = 0;
};

struct Point {
    Point(double x, double y) : x(x), y(y) {}
    ~Point() { ++gone; }
    double x, y;
    static int gone;
};
int Point::gone = 0;

int main(int argc, char **) {
    Tracked *one = new Tracked;
    Tracked *many = new Tracked[3 + argc];
    int sum = one->v + many[2].v;
    delete one;
    delete[] many;

    CacheLine *lines = new CacheLine[2];
    lines[1].tag = argc;
    bool aligned = reinterpret_cast<std::uintptr_t>(lines) % 64 == 0;
    delete[] lines;

    Pool pool;
    Point *p = new (pool.allocate(sizeof(Point), alignof(Point))) Point(1.5, argc);
    double px = p->x + p->y;
    p->~Point();

    int *big = new (std::nothrow) int[1000];
    if (big)
        big[999] = argc;
    int last = big ? big[999] : -1;
    delete[] big;

    double *ds = new double[4]{ 1, 2, 3, 4 };
    double dsum = ds[0] + ds[3];
    delete[] ds;

    std::printf("%d %d %d %d %d %d %zu %g %d %d %g\n", sum, Tracked::allocs, Tracked::frees, Tracked::destroyed,
                aligned, int(alignof(CacheLine)), pool.used(), px, Point::gone, last, dsum);
    return 0;
}
