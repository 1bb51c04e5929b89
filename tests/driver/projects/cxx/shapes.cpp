#include "shapes.h"
#include <stdexcept>

namespace {
struct Square : Shape {
    double side;
    explicit Square(double s) : side(s) {}
    double area() const override { return side * side; }
    std::string name() const override { return "square"; }
};

struct Circle : Shape {
    double radius;
    explicit Circle(double r) : radius(r) {}
    double area() const override { return 3.14159265358979 * radius * radius; }
    std::string name() const override { return "circle"; }
};

struct Registry {
    std::vector<std::string> kinds;
    Registry() : kinds{"square", "circle"} { registry_size = int(kinds.size()); }
};
Registry registry;  // constructed before main
}  // namespace

int registry_size;

std::unique_ptr<Shape> make_shape(const std::string &kind, double size) {
    if (kind == "square")
        return std::make_unique<Square>(size);
    if (kind == "circle")
        return std::make_unique<Circle>(size);
    throw std::invalid_argument("unknown shape: " + kind);
}
