// std::map and std::string: word frequencies, ordered iteration, lower/upper bound,
// erase during iteration and aggregation into a second map.
#include <cstdio>
#include <map>
#include <string>

static std::map<std::string, int> word_counts(const std::string &text) {
    std::map<std::string, int> counts;
    std::string word;
    for (char c : text) {
        if (c == ' ' || c == ',' || c == '.') {
            if (!word.empty())
                ++counts[word];
            word.clear();
        } else {
            word += static_cast<char>(c | 0x20);
        }
    }
    if (!word.empty())
        ++counts[word];
    return counts;
}

static std::map<char, int> count_by_initial(const std::map<std::string, int> &m) {
    std::map<char, int> idx;
    for (const auto &[w, n] : m)
        idx[w[0]] += n;
    return idx;
}

int main(int argc, char **argv) {
    std::string text = "The cat and the hat. A cat, a bat, and THE rat sat on the mat";
    text += argc > 1 ? argv[1] : "";
    auto counts = word_counts(text);
    auto idx = count_by_initial(counts);
    int removed = 0;
    for (auto it = counts.begin(); it != counts.end();) {
        if (it->second == 1) {
            it = counts.erase(it);
            ++removed;
        } else {
            ++it;
        }
    }
    std::map<int, double, std::greater<int>> scores{ { 3, 1.5 }, { 10, 2.5 }, { 7, 0.5 } };
    scores.emplace(argc, 9.0);
    auto lb = scores.lower_bound(5);
    std::string joined;
    for (const auto &[c, n] : idx)
        if (n > 1)
            joined += c;
    std::printf("%zu %d %d %zu %d %g %s %zu\n", counts.size(), counts["the"], removed, idx.size(), lb->first,
                lb->second, joined.c_str(), counts.count("cat"));
    return 0;
}
