"""The language of BLAS derivative rules (`blas_rules.RULES`): parsed once, run by `blas_eval`.

A rule is a list of *items*; an item is a statement or a tuple of statements run
together (the temporaries it declares are freed at its end). Statements:

    gemv(T(trans), m, n, alpha, A, d(y), 1.0, d(x))     a BLAS call (or a helper)
    d(alpha) += dot(len(y), d(y), old(y))               add to a scalar's derivative
    tmp t: vec(len(y))                                  a temporary vector (or mat(rows, cols);
                                                        zvec, zmat: filled with zeros)
    unless first: scal(len(y), beta, d(y))              run only if no earlier first(...) was used
    unless x: scal(n, 0.0, d(y))                        run only if x has no derivative

An item runs when everything it names under `d(...)` (and `dret`, the adjoint
of the result) has a derivative: the adjoint of a constant matrix is never
computed. Calls name BLAS routines without the layout and without increments
and leading dimensions: an array operand (`x`, `d(A)`, `old(y)`, a temporary,
`diag(d(C))`) carries its own, and the layout is the call's. Expressions:

    x, A, n, alpha      a parameter of the routine (arrays: as the call read them)
    d(x), d(alpha)      the derivative memory of an array; a scalar's tangent
    old(y)              an overwritten array as it was before the call
    new(B)              an overwritten array as the call left it (reverse: trsm's solution)
    ret, dret           the routine's result; the adjoint of it (reverse)
    T(trans)            the transposed flag; pick(trans, a, b): a if trans is 'N', else b
    first(beta)         beta the first time a statement uses it, 1 afterwards
    len(x), rows(A), cols(A), diag(A)   shapes; the diagonal as a vector
    'N' 'T' 'L' 'R' 'U' 'G'             flags; 1.0, 2 numbers; + - * /, div0(a, b)
    live(n, incx)       n if incx > 0, else 0 (nrm2, asum and scal ignore such a vector)
    flip(uplo), normal_of(uplo), trans_of(uplo), side_of(uplo)
                        flags derived from a triangle: the other one; 'T'/'N', 'N'/'T',
                        'R'/'L' for 'U'/'L' (potrf's solves and product)
    symmetrize(uplo, n, d(A))   the triangle copied onto the other, one copy per line

`scal` in a rule scales the whole vector whatever the sign of its increment.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache


@dataclass(frozen=True)
class Name:
    name: str


@dataclass(frozen=True)
class Number:
    text: str

    @property
    def is_float(self) -> bool:
        return "." in self.text or "e" in self.text

    @property
    def value(self) -> float:
        return float(self.text)


@dataclass(frozen=True)
class Flag:
    """A flag constant: 'N', 'T' (transposes), 'L', 'R' (sides), 'U' (triangles), 'G' (general)."""

    letter: str


@dataclass(frozen=True)
class Apply:
    """`f(args)`: a BLAS routine, a helper, or a form (`d`, `old`, `T`, `pick`, ...)."""

    function: str
    args: tuple[Expr, ...]


@dataclass(frozen=True)
class BinOp:
    op: str
    lhs: Expr
    rhs: Expr


Expr = Name | Number | Flag | Apply | BinOp


@dataclass(frozen=True)
class Statement:
    kind: str
    """call (an expression evaluated for its effect), add (`d(target) += expr`) or tmp."""
    expr: Expr | None
    target: str | None = None
    """add: the scalar parameter; tmp: the temporary's name."""
    shape: tuple[str, tuple[Expr, ...]] | None = None
    """tmp: ("vec", (length,)) or ("mat", (rows, cols))."""
    unless: str | None = None
    """`first`, or a parameter that must have no derivative."""


Item = tuple[Statement, ...]

_TOKEN = re.compile(r"\s*(?:(\d+\.\d*(?:e-?\d+)?|\d+)|('[A-Z]')|([A-Za-z_]\w*)|(\+=|[-+*/(),:]))")


def _tokens(text: str) -> list[str]:
    out, pos = [], 0
    text = text.strip()
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None:
            raise ValueError(f"BLAS rule {text!r}: cannot read from {text[pos:]!r}")
        out.append(m.group(m.lastindex))
        pos = m.end()
    return out


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.toks = _tokens(text)
        self.pos = 0

    def peek(self) -> str | None:
        return self.toks[self.pos] if self.pos < len(self.toks) else None

    def take(self, expected: str | None = None) -> str:
        tok = self.peek()
        if tok is None or (expected is not None and tok != expected):
            raise ValueError(f"BLAS rule {self.text!r}: expected {expected or 'more'}, found {tok!r}")
        self.pos += 1
        return tok

    def statement(self) -> Statement:
        unless = None
        if self.peek() == "unless":
            self.take()
            unless = self.take()
            self.take(":")
        if self.peek() == "tmp":
            self.take()
            name = self.take()
            self.take(":")
            kind = self.take()
            self.take("(")
            dims = self.arguments()
            stmt = Statement("tmp", None, name, (kind, dims), unless)
        else:
            expr = self.expr()
            if self.peek() == "+=":
                self.take()
                if not (isinstance(expr, Apply) and expr.function == "d" and isinstance(expr.args[0], Name)):
                    raise ValueError(f"BLAS rule {self.text!r}: only d(scalar) += ... is allowed")
                stmt = Statement("add", self.expr(), expr.args[0].name, None, unless)
            else:
                stmt = Statement("call", expr, None, None, unless)
        if self.peek() is not None:
            raise ValueError(f"BLAS rule {self.text!r}: unexpected {self.peek()!r}")
        return stmt

    def arguments(self) -> tuple[Expr, ...]:
        args = []
        while self.peek() != ")":
            args.append(self.expr())
            if self.peek() == ",":
                self.take()
        self.take(")")
        return tuple(args)

    def expr(self) -> Expr:
        node = self.term()
        while self.peek() in ("+", "-"):
            op = self.take()
            node = BinOp(op, node, self.term())
        return node

    def term(self) -> Expr:
        node = self.factor()
        while self.peek() in ("*", "/"):
            op = self.take()
            node = BinOp(op, node, self.factor())
        return node

    def factor(self) -> Expr:
        tok = self.take()
        if tok == "(":
            node = self.expr()
            self.take(")")
            return node
        if tok == "-":
            return BinOp("-", Number("0"), self.factor())
        if tok[0].isdigit():
            return Number(tok)
        if tok.startswith("'"):
            return Flag(tok[1])
        if self.peek() == "(":
            self.take()
            return Apply(tok, self.arguments())
        return Name(tok)


@lru_cache(maxsize=None)
def parse_statement(text: str) -> Statement:
    return _Parser(text).statement()


def parse_expr(text: str) -> Expr:
    p = _Parser(text)
    e = p.expr()
    if p.peek() is not None:
        raise ValueError(f"BLAS expression {text!r}: unexpected {p.peek()!r}")
    return e


def parse_item(item: str | tuple[str, ...]) -> Item:
    texts = (item,) if isinstance(item, str) else item
    return tuple(parse_statement(t) for t in texts)


# -- what an item names ---------------------------------------------------------------------


def _walk(e: Expr | None, inside: str | None = None):
    """(node, the form it is directly inside) for every node of `e`."""
    if e is None:
        return
    yield e, inside
    if isinstance(e, Apply):
        for a in e.args:
            yield from _walk(a, e.function)
    elif isinstance(e, BinOp):
        yield from _walk(e.lhs, inside)
        yield from _walk(e.rhs, inside)


def _exprs(stmt: Statement):
    yield stmt.expr
    if stmt.shape is not None:
        yield from stmt.shape[1]


def derivatives_named(item: Item) -> set[str]:
    """Parameters named under `d(...)` and `ret` for `dret`: the item runs only if all
    of them have a derivative."""
    out: set[str] = set()
    for stmt in item:
        if stmt.kind == "add":
            out.add(stmt.target)  # type: ignore[arg-type]
        for e in _exprs(stmt):
            for node, inside in _walk(e):
                if isinstance(node, Name) and inside == "d":
                    out.add(node.name)
                elif isinstance(node, Name) and node.name == "dret":
                    out.add("ret")
    return out


def primals_named(item: Item) -> tuple[set[str], set[str], set[str]]:
    """(names used as primal values, names used under old(...), under new(...)) in `item`."""
    plain: set[str] = set()
    old: set[str] = set()
    new: set[str] = set()
    for stmt in item:
        for e in _exprs(stmt):
            for node, inside in _walk(e):
                if isinstance(node, Name) and inside == "old":
                    old.add(node.name)
                elif isinstance(node, Name) and inside == "new":
                    new.add(node.name)
                elif isinstance(node, Name) and inside != "d":
                    plain.add(node.name)
    return plain, old, new


def uses_first(item: Item) -> bool:
    return any(isinstance(n, Apply) and n.function == "first" for s in item for e in _exprs(s) for n, _ in _walk(e))
