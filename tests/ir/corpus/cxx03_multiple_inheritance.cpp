// Multiple and virtual inheritance: this-adjusting thunks, virtual base offsets,
// construction vtables, casts between bases and calls through each base.
#include <cstdio>

struct Named {
    virtual ~Named() = default;
    virtual const char *name() const { return "named"; }
    int name_hits = 0;
};

struct Serializable {
    virtual ~Serializable() = default;
    virtual int serialize(char *buf, int cap) const = 0;
    int version = 1;
};

struct Document : Named, Serializable {
    explicit Document(int pages) : pages_(pages) {}
    const char *name() const override { return "document"; }
    int serialize(char *buf, int cap) const override {
        return std::snprintf(buf, (unsigned)cap, "doc:%d:v%d", pages_, version);
    }
    int pages_;
};

// Diamond with a virtual base.
struct Device {
    explicit Device(int id) : id(id) {}
    virtual ~Device() = default;
    virtual int power() const { return 1; }
    int id;
};

struct Scanner : virtual Device {
    Scanner() : Device(-1), dpi(300) {}
    int power() const override { return 5 + dpi / 100; }
    virtual int scan() const { return dpi * 2; }
    int dpi;
};

struct Printer : virtual Device {
    Printer() : Device(-2), ppm(20) {}
    virtual int print(int pages) const { return pages * 60 / ppm; }
    int ppm;
};

struct Copier final : Scanner, Printer {
    explicit Copier(int id) : Device(id) {}
    int power() const override { return Scanner::power() + 7; }
    int copy(int pages) const { return scan() + print(pages); }
};

static int serialize_any(const Serializable &s) {
    char buf[64];
    return s.serialize(buf, sizeof buf);
}

static int device_power(const Device *d) { return d ? d->power() : 0; }

static const Named *as_named(const Serializable *s) { return dynamic_cast<const Named *>(s); }

int main(int argc, char **) {
    Document doc(10 * argc);
    Serializable *ser = &doc;
    Named *named = &doc;
    Copier cop(argc);
    Printer *pr = &cop;
    Scanner *sc = &cop;
    Device *dev = pr;
    const Named *back = as_named(ser);
    std::printf("%d %s %d %d %d %d %d %s\n", serialize_any(doc), named->name(), device_power(dev),
                pr->print(argc), sc->scan(), cop.copy(3), dev->id, back ? back->name() : "none");
    return 0;
}
