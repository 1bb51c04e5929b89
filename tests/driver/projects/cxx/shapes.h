// C++ sample for enzc++: classes with virtual functions, templates, std::vector,
// exceptions and a global object with a constructor, over two translation units.
#pragma once
#include <memory>
#include <string>
#include <vector>

struct Shape {
    virtual ~Shape() = default;
    virtual double area() const = 0;
    virtual std::string name() const = 0;
};

std::unique_ptr<Shape> make_shape(const std::string &kind, double size);

template <typename T> T total(const std::vector<T> &values) {
    T sum{};
    for (const T &v : values)
        sum += v;
    return sum;
}

extern int registry_size;
