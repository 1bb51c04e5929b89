// Hash-based containers: std::unordered_map with a user-defined key and hash,
// std::unordered_set, erase, rehashing and iteration; typical caching/memoization.
#include <cstdint>
#include <cstdio>
#include <unordered_map>
#include <unordered_set>

struct GridPos {
    int x, y;
    bool operator==(const GridPos &o) const { return x == o.x && y == o.y; }
};

struct GridHash {
    size_t operator()(const GridPos &p) const noexcept {
        uint64_t h = uint64_t(uint32_t(p.x)) << 32 | uint32_t(p.y);
        h ^= h >> 33;
        h *= 0xff51afd7ed558ccdULL;
        return size_t(h ^ (h >> 33));
    }
};

static long paths(int x, int y, std::unordered_map<GridPos, long, GridHash> &memo) {
    if (x == 0 || y == 0)
        return 1;
    auto it = memo.find({ x, y });
    if (it != memo.end())
        return it->second;
    long v = paths(x - 1, y, memo) + paths(x, y - 1, memo);
    memo.emplace(GridPos{ x, y }, v);
    return v;
}

static int flood(int w, int h, int sx, int sy) {
    std::unordered_set<GridPos, GridHash> seen;
    GridPos stack[256];
    int sp = 0;
    stack[sp++] = { sx, sy };
    while (sp) {
        GridPos p = stack[--sp];
        if (p.x < 0 || p.y < 0 || p.x >= w || p.y >= h || (p.x * p.y) % 7 == 3)
            continue;
        if (!seen.insert(p).second)
            continue;
        if (sp < 252) {
            stack[sp++] = { p.x + 1, p.y };
            stack[sp++] = { p.x - 1, p.y };
            stack[sp++] = { p.x, p.y + 1 };
            stack[sp++] = { p.x, p.y - 1 };
        }
    }
    return int(seen.size());
}

int main(int argc, char **) {
    std::unordered_map<GridPos, long, GridHash> memo;
    long p = paths(8 + argc, 8, memo);
    memo.erase({ 1, 1 });
    memo.rehash(256);
    long sum = 0;
    for (const auto &kv : memo)
        sum += kv.first.x == kv.first.y ? kv.second % 1000 : 0;
    std::printf("%ld %zu %ld %zu %d\n", p, memo.size(), sum, memo.bucket_count() >= 256 ? memo.size() : 0,
                flood(10, 10, argc, 0));
    return 0;
}
