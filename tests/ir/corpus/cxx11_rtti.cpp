// RTTI: dynamic_cast up, down and across a hierarchy (pointers and references),
// typeid of objects and types, type_info comparisons and names.
#include <cstdio>
#include <cstring>
#include <typeinfo>

struct Animal {
    virtual ~Animal() = default;
    virtual int legs() const { return 4; }
};
struct Pet {
    virtual ~Pet() = default;
    const char *owner = "nobody";
};
struct Dog : Animal, Pet {
    int tricks = 3;
};
struct Bird : Animal {
    int legs() const override { return 2; }
    bool flies = true;
};
struct Penguin final : Bird {
    Penguin() { flies = false; }
};

static int describe(const Animal *a) {
    int score = a->legs();
    if (auto d = dynamic_cast<const Dog *>(a))
        score += d->tricks * 10;
    if (auto b = dynamic_cast<const Bird *>(a))
        score += b->flies ? 100 : 200;
    if (dynamic_cast<const Pet *>(a))
        score += 1000;
    return score;
}

static const char *kind(const Animal &a) {
    if (typeid(a) == typeid(Dog)) return "dog";
    if (typeid(a) == typeid(Penguin)) return "penguin";
    if (typeid(a) == typeid(Bird)) return "bird";
    return "animal";
}

static int ref_cast(Animal &a) {
#if defined(__cpp_exceptions)
    try {
        Bird &b = dynamic_cast<Bird &>(a);
        return b.legs();
    } catch (const std::bad_cast &) {
        return -1;
    }
#else
    Bird *b = dynamic_cast<Bird *>(&a);
    return b ? b->legs() : -1;
#endif
}

int main(int argc, char **) {
    Dog dog;
    Bird bird;
    Penguin penguin;
    Animal generic;
    Animal *zoo[4] = { &dog, &bird, &penguin, &generic };
    int total = 0;
    for (Animal *a : zoo)
        total += describe(a);
    Pet *pet = &dog;
    Animal *back = dynamic_cast<Animal *>(pet);
    void *most_derived = dynamic_cast<void *>(pet);
    const std::type_info &ti = typeid(*zoo[argc % 4]);
    std::printf("%d %s %s %d %d %d %d %zu %d\n", total, kind(*zoo[argc % 4]), kind(penguin),
                back == &dog, most_derived == &dog, ref_cast(penguin), ref_cast(dog), std::strlen(ti.name()),
                typeid(int) == typeid(argc));
    return 0;
}
