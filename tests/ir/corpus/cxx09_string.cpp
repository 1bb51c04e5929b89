// std::string: construction, concatenation, find/substr/replace, small-string
// optimization boundaries, comparisons, std::to_string/stoi and string_view.
#include <cstdio>
#include <string>
#include <string_view>

static std::string trim(std::string_view s) {
    size_t b = s.find_first_not_of(" \t\n");
    if (b == std::string_view::npos)
        return {};
    size_t e = s.find_last_not_of(" \t\n");
    return std::string(s.substr(b, e - b + 1));
}

static std::string replace_all(std::string s, const std::string &from, const std::string &to) {
    for (size_t pos = s.find(from); pos != std::string::npos; pos = s.find(from, pos + to.size()))
        s.replace(pos, from.size(), to);
    return s;
}

static int count_fields(std::string_view line, char sep) {
    int n = 1;
    for (char c : line)
        n += c == sep;
    return n;
}

static std::string join_numbers(int from, int to) {
    std::string out;
    for (int i = from; i <= to; i++) {
        if (!out.empty())
            out += ", ";
        out += std::to_string(i * i);
    }
    return out;
}

static bool is_palindrome(const std::string &s) {
    return std::equal(s.begin(), s.begin() + long(s.size() / 2), s.rbegin());
}

int main(int argc, char **argv) {
    std::string greeting = "  Hello, world!\t";
    std::string t = trim(greeting);
    std::string r = replace_all("a-b-c-d-e", "-", "::");
    std::string small = "tiny", large(40, 'x');
    large += small + argv[0];
    std::string nums = join_numbers(1, 5 + argc);
    int parsed = std::stoi("123") + argc;
    std::string upper = t;
    for (auto &c : upper)
        if (c >= 'a' && c <= 'z')
            c = char(c - 32);
    std::printf("%s|%s|%zu|%s|%d|%d|%d|%s|%d|%zu\n", t.c_str(), r.c_str(), large.size(), nums.c_str(),
                parsed, count_fields("a,b,,c", ','), t < r, upper.c_str(), is_palindrome("racecar"),
                t.rfind('o'));
    return 0;
}
