// std::vector and <algorithm>/<numeric>: push_back/emplace_back growth, reserve,
// insert/erase, iterators, sort/unique/lower_bound, accumulate/inner_product,
// vectors of structs and vectors of vectors.
#include <algorithm>
#include <cstdio>
#include <numeric>
#include <vector>

struct Sample {
    double t, value;
    int channel;
};

static std::vector<double> moving_average(const std::vector<double> &x, size_t w) {
    std::vector<double> out;
    out.reserve(x.size());
    double s = 0;
    for (size_t i = 0; i < x.size(); i++) {
        s += x[i];
        if (i >= w)
            s -= x[i - w];
        out.push_back(s / double(std::min(i + 1, w)));
    }
    return out;
}

static std::vector<std::vector<int>> pascal(int rows) {
    std::vector<std::vector<int>> tri;
    for (int r = 0; r < rows; r++) {
        std::vector<int> row(r + 1, 1);
        for (int k = 1; k < r; k++)
            row[k] = tri[r - 1][k - 1] + tri[r - 1][k];
        tri.push_back(std::move(row));
    }
    return tri;
}

int main(int argc, char **) {
    std::vector<double> xs;
    for (int i = 0; i < 20; i++)
        xs.push_back(i % 5 + 0.5 * argc);
    auto ma = moving_average(xs, 4);
    std::vector<int> ids{ 7, 3, 3, 9, 1, 7, argc, 4 };
    std::sort(ids.begin(), ids.end());
    ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
    auto pos = std::lower_bound(ids.begin(), ids.end(), 4) - ids.begin();
    ids.insert(ids.begin() + 1, 42);
    std::vector<Sample> samples;
    for (int i = 0; i < 6; i++)
        samples.push_back({ i * 0.1, i * 1.5 - argc, i % 2 });
    samples.emplace_back(Sample{ 1.0, 99.0, 1 });
    double ch1 = 0;
    for (const auto &s : samples)
        if (s.channel == 1)
            ch1 += s.value;
    auto best = std::max_element(samples.begin(), samples.end(),
                                 [](const Sample &a, const Sample &b) { return a.value < b.value; });
    double sum = std::accumulate(xs.begin(), xs.end(), 0.0);
    double ip = std::inner_product(xs.begin(), xs.begin() + 5, ma.begin(), 0.0);
    auto tri = pascal(8 + argc);
    std::vector<int> rev(ids.rbegin(), ids.rend());
    std::printf("%g %g %td %zu %g %g %g %d %d %zu\n", ma.back(), sum, pos, ids.size(), ch1, best->t, ip,
                tri.back()[3], rev.front(), xs.capacity() >= xs.size() ? tri.size() : 0);
    return 0;
}
