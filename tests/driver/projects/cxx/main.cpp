#include <cstdio>
#include <stdexcept>
#include "shapes.h"

int main() {
    std::vector<std::unique_ptr<Shape>> shapes;
    const char *kinds[] = {"square", "circle", "square"};
    for (int i = 0; i < 3; ++i)
        shapes.push_back(make_shape(kinds[i], 1.0 + i));
    std::vector<double> areas;
    for (const auto &s : shapes) {
        areas.push_back(s->area());
        std::printf("%s %.6f\n", s->name().c_str(), s->area());
    }
    std::printf("total %.6f of %d kinds\n", total(areas), registry_size);
    std::printf("ints %d\n", total(std::vector<int>{1, 2, 3, 4}));
    try {
        make_shape("hexagon", 1.0);
    } catch (const std::invalid_argument &e) {
        std::printf("caught: %s\n", e.what());
    }
    return 0;
}
