// Plain C++ classes: constructors (default, delegating, copy), destructors,
// member functions, const/static members, friends, nested classes and references.
#include <cstdio>
#include <cstring>

class Account {
public:
    Account() : Account("anonymous", 0) {}
    Account(const char *owner, long cents) : balance_(cents), id_(next_id_++) {
        std::strncpy(owner_, owner, sizeof owner_ - 1);
        owner_[sizeof owner_ - 1] = '\0';
        ++live_;
    }
    Account(const Account &other) : Account(other.owner_, other.balance_) {}
    ~Account() { --live_; }

    bool withdraw(long cents) {
        if (cents > balance_)
            return false;
        balance_ -= cents;
        return true;
    }
    void deposit(long cents) { balance_ += cents; }
    long balance() const { return balance_; }
    int id() const { return id_; }
    const char *owner() const { return owner_; }
    static int live() { return live_; }

    friend bool transfer(Account &from, Account &to, long cents);

    class Statement {
    public:
        explicit Statement(const Account &a) : acct_(a), lines_(0) {}
        void add(long amount) { total_ += amount; ++lines_; }
        long net() const { return acct_.balance() + total_; }
        int lines() const { return lines_; }
    private:
        const Account &acct_;
        int lines_;
        long total_ = 0;
    };

private:
    char owner_[32];
    long balance_;
    int id_;
    static int next_id_;
    static int live_;
};

int Account::next_id_ = 1;
int Account::live_ = 0;

bool transfer(Account &from, Account &to, long cents) {
    if (!from.withdraw(cents))
        return false;
    to.deposit(cents);
    return true;
}

struct Point {
    double x = 0, y = 0;
    Point &operator+=(const Point &o) { x += o.x; y += o.y; return *this; }
    double &coord(int i) { return i ? y : x; }
};

class Polygon {
public:
    explicit Polygon(int n) : n_(n), pts_(new Point[n]) {}
    ~Polygon() { delete[] pts_; }
    Polygon(const Polygon &) = delete;
    Polygon &operator=(const Polygon &) = delete;
    Point &at(int i) { return pts_[i % n_]; }
    Point centroid() const {
        Point c;
        for (int i = 0; i < n_; i++)
            c += pts_[i];
        c.x /= n_;
        c.y /= n_;
        return c;
    }
private:
    int n_;
    Point *pts_;
};

int main(int argc, char **argv) {
    Account a("alice", 10000), b(argv[0], 500 * argc);
    Account c(a), d;
    transfer(a, b, 2500);
    transfer(b, d, 100000);
    Account::Statement st(b);
    st.add(-300);
    st.add(125);
    Polygon poly(3 + argc);
    for (int i = 0; i < 3 + argc; i++) {
        poly.at(i).coord(0) = i;
        poly.at(i).coord(1) = i * i;
    }
    Point cen = poly.centroid();
    std::printf("%ld %ld %d %d %ld %d %g %g %s\n", a.balance(), b.balance(), c.id(), Account::live(),
                st.net(), st.lines(), cen.x, cen.y, d.owner());
    return 0;
}
