// Smart pointers: unique_ptr with custom deleters and arrays, shared_ptr/weak_ptr
// reference counting (atomic increments), make_shared, enable_shared_from_this and
// ownership transfer through function boundaries.
#include <cstdio>
#include <memory>
#include <utility>

struct Node : std::enable_shared_from_this<Node> {
    explicit Node(int v) : value(v) { ++alive; }
    ~Node() { --alive; }
    std::shared_ptr<Node> self() { return shared_from_this(); }
    int value;
    std::shared_ptr<Node> next;
    std::weak_ptr<Node> prev;
    static int alive;
};
int Node::alive = 0;

struct FileCloser {
    void operator()(std::FILE *f) const {
        if (f)
            std::fclose(f);
    }
};

static std::unique_ptr<int[]> make_table(int n) {
    auto t = std::make_unique<int[]>(static_cast<size_t>(n));
    for (int i = 0; i < n; i++)
        t[i] = i * i;
    return t;
}

static int consume(std::unique_ptr<Node> n) { return n ? n->value : -1; }

static std::shared_ptr<Node> build_chain(int n) {
    std::shared_ptr<Node> head;
    for (int i = n; i > 0; i--) {
        auto node = std::make_shared<Node>(i);
        node->next = head;
        if (head)
            head->prev = node;
        head = node;
    }
    return head;
}

static int chain_sum(const std::shared_ptr<Node> &head) {
    int s = 0;
    for (auto p = head; p; p = p->next)
        s += p->value;
    return s;
}

int main(int argc, char **argv) {
    auto table = make_table(5 + argc);
    auto owned = std::make_unique<Node>(7);
    int consumed = consume(std::move(owned));
    std::unique_ptr<std::FILE, FileCloser> f(std::fopen(argv[0], "rb"));
    auto chain = build_chain(4 + argc);
    std::weak_ptr<Node> watch = chain->next;
    long uses = chain.use_count();
    auto again = chain->self();
    int before = Node::alive;
    int prev_value = -1;
    if (auto locked = watch.lock())
        if (auto p = locked->prev.lock())
            prev_value = p->value;
    std::shared_ptr<int> aliasing(chain, &chain->value);
    int total = chain_sum(again);
    again.reset();
    chain.reset();
    std::printf("%d %d %d %d %ld %d %d %d %d %d\n", total, table[3], consumed, f != nullptr, uses, before, prev_value,
                *aliasing, watch.expired(), Node::alive);
    return 0;
}
