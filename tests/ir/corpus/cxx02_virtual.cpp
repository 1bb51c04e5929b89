// Virtual dispatch: abstract base classes, pure virtual functions, overrides, final,
// virtual destructors, covariant returns and calls through base pointers/references
// (vtables, vtable loads, indirect calls, devirtualization at -O2).
#include <cmath>
#include <cstdio>
#include <memory>

class Shape {
public:
    virtual ~Shape() = default;
    virtual double area() const = 0;
    virtual double perimeter() const = 0;
    virtual const char *name() const { return "shape"; }
    virtual Shape *clone() const = 0;
    double compactness() const { return 4 * M_PI * area() / (perimeter() * perimeter()); }
};

class Circle : public Shape {
public:
    explicit Circle(double r) : r_(r) {}
    double area() const override { return M_PI * r_ * r_; }
    double perimeter() const override { return 2 * M_PI * r_; }
    const char *name() const override { return "circle"; }
    Circle *clone() const override { return new Circle(*this); }
private:
    double r_;
};

class Rect : public Shape {
public:
    Rect(double w, double h) : w_(w), h_(h) {}
    double area() const override { return w_ * h_; }
    double perimeter() const override { return 2 * (w_ + h_); }
    const char *name() const override { return "rect"; }
    Rect *clone() const override { return new Rect(*this); }
protected:
    double w_, h_;
};

class Square final : public Rect {
public:
    explicit Square(double s) : Rect(s, s) {}
    const char *name() const override { return "square"; }
    Square *clone() const override { return new Square(*this); }
};

class Logger {
public:
    virtual ~Logger() { std::printf("logger closed after %d lines\n", lines_); }
    virtual void log(const char *what, double v) { ++lines_; std::printf("%s=%g\n", what, v); }
protected:
    int lines_ = 0;
};

class PrefixLogger : public Logger {
public:
    explicit PrefixLogger(const char *p) : prefix_(p) {}
    ~PrefixLogger() override { std::printf("prefix logger %s done\n", prefix_); }
    void log(const char *what, double v) override {
        std::printf("[%s] ", prefix_);
        Logger::log(what, v);
    }
private:
    const char *prefix_;
};

static double total_area(Shape *const *shapes, int n) {
    double s = 0;
    for (int i = 0; i < n; i++)
        s += shapes[i]->area();
    return s;
}

static void report(Logger &log, const Shape &s) {
    log.log(s.name(), s.area());
    log.log("compactness", s.compactness());
}

int main(int argc, char **) {
    Shape *shapes[4] = { new Circle(1.0 * argc), new Rect(2, 3), new Square(2.5), nullptr };
    shapes[3] = shapes[argc % 3]->clone();
    std::unique_ptr<Logger> log(argc > 1 ? new Logger : new PrefixLogger("geo"));
    for (Shape *s : shapes)
        report(*log, *s);
    double t = total_area(shapes, 4);
    for (Shape *s : shapes)
        delete s;
    std::printf("%g\n", t);
    return 0;
}
