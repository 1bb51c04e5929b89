"""The engine under the IR parser: lark's LALR(1) tables, a context-free lexer, a tight driver.

lark analyses `llvm.lark` and builds the LALR tables. Running lark's own lexer and
parse loop over multi-megabyte modules is several times too slow, so this module
replaces both hot loops:

- `Lexer`: LLVM's lexical grammar is context-free, so one compiled regex with a
  group per token family finds every token in a single `finditer` pass; words are
  classified by exact lookup among the grammar's keyword terminals. Tokens are
  (terminal, text, offset) tuples; only terminals a rule keeps become `Tok` strings.
- `Engine.parse`: the shift/reduce loop over lark's table. Each rule's reduction is
  compiled into one small function that does what lark's tree builder would (drop
  punctuation, splice `_rule` children, fill `[x]` placeholders, pass a `?rule`'s
  single child through) and calls the transformer's method for the rule; states that
  only reduce a single symbol are folded into the transitions entering them.

Errors come out as `SyntaxProblem(offset, message)`; parser.py turns offsets into
`file:line:col`.
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path
from typing import Any, Callable, Iterator

import lark
from lark.lexer import PatternRE, PatternStr
from lark.parsers.lalr_analysis import Shift

GRAMMAR_PATH = Path(__file__).with_name("llvm.lark")


def _table_cache() -> str | bool:
    """Where lark keeps the grammar's LALR tables between runs.

    The user's cache directory, not lark's default in TMPDIR: enzcc promises to leave
    nothing in TMPDIR. Lark checks the grammar's hash in the file and rebuilds a stale
    or damaged one; False (no cache) when the directory cannot be made.
    """
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "enzc"
    try:
        base.mkdir(parents=True, exist_ok=True)
    except OSError:
        return False
    return str(base / f"lark-tables-{lark.__version__}-py{sys.version_info[0]}{sys.version_info[1]}.pickle")

_WORD_SET = re.compile(r"\(\?:([A-Za-z0-9_|]+)\)\Z")
"""A keyword-set terminal: lark spells `"a" | "b"` as `(?:a|b)`."""

_SKIP = r"(?:[ \t\r\n]++|;[^\n\r\x00]*+)*+"
"""Whitespace and comments, skipped before every token."""


class Tok(str):
    """A token: its text, terminal name and offset in the parsed text."""

    # Read by lark when it builds its end-of-input token.
    start_pos = line = column = end_line = end_column = end_pos = None

    def __repr__(self) -> str:
        return f"Tok({self.type}, {str.__repr__(self)})"


class SyntaxProblem(Exception):
    """A lexical or grammatical error at an offset of the parsed text."""

    def __init__(self, pos: int, message: str) -> None:
        super().__init__(message)
        self.pos = pos
        self.message = message


# Friendly names for terminals in "expected ..." messages.
_DESCRIBE = {
    "LOCAL": "local name (%x)", "GLOBAL": "global name (@x)", "INT": "integer", "FLOAT": "floating-point constant",
    "STRING": "string", "COMMA": "','", "LPAR": "'('", "RPAR": "')'", "LSQB": "'['", "RSQB": "']'",
    "LBRACE": "'{'", "RBRACE": "'}'", "LESSTHAN": "'<'", "MORETHAN": "'>'", "EQUAL": "'='",
    "END": "end of line", "$END": "end of input", "INTTYPE": "type", "FLOATTY": "type", "PTR": "type",
    "LABEL_DEF": "label", "MDREF": "metadata (!N)", "COMMA_ALIGN": "', align'", "ATTACH": "metadata attachment",
}


def describe_token(name: str) -> str:
    if name in _DESCRIBE:
        return _DESCRIBE[name]
    return f"'{name.lower()}'" if name.isupper() or name.isalpha() else name


_PARENS = r"\((?:[^()\"]|\"[^\"]*\"|\((?:[^()\"]|\"[^\"]*\")*\))*\)"
"""A parenthesised argument list with strings and one level of nested parentheses."""

_NAME = r'(?:[-a-zA-Z$._][-a-zA-Z$._0-9]*|[0-9]+|"[^"]*")'

# One alternative per token family, most frequent first; the Python side of
# `Lexer.tokens` tells the terminals of a family apart by their first/last characters.
_FAMILIES = [
    ("NAME", r"[%@]" + _NAME),
    ("LABEL", r'(?:[-a-zA-Z$._0-9]+|"[^"]*"):'),
    ("CSTR", r'c"[^"]*"|[us]0x[0-9A-Fa-f]+'),
    ("WORD", r"[a-zA-Z_][a-zA-Z0-9_]*(?:" + _PARENS + r")?"),
    ("NUM", r"0x[KLMHR]?[0-9A-Fa-f]+|-?[0-9]+(?:\.[0-9]*(?:[eE][-+]?[0-9]+)?)?"),
    ("COMMA", r",\s*(?:align(?![-\w.$])|addrspace(?=\()"
              r"|![-a-zA-Z$._\\][-a-zA-Z$._0-9\\]*(?![-a-zA-Z$._0-9\\(])(?:\s+![0-9]+(?![0-9]))?)|,"),
    ("PUNCT", r"[(){}\[\]<>=*]"),
    ("BANG", r'!(?:[0-9]+|"[^"]*"|\{|DIArgList\(|[A-Za-z]+' + _PARENS + r"|[-a-zA-Z$._\\][-a-zA-Z$._0-9\\]*)"),
    ("STR", r'"[^"]*"(?:="[^"]*")?'),
    ("HASH", r"#dbg_[a-z_]+\(|#[0-9]+"),
    ("COMDATREF", r"\$" + _NAME),
    ("OTHER", r"\.\.\.|\x00|\x01"),
    ("BAD", r"[\s\S]"),
]
_SENTINEL = "\x01"
"""Appended to the text by `Lexer.tokens`: marks the end, after any trailing whitespace."""
_F = {name: i + 1 for i, (name, _) in enumerate(_FAMILIES)}

_PAREN_KEYWORDS = {"syncscope": "SYNCSCOPE", "inrange": "GEPFLAG"}
"""Words whose `word(...)` spelling is one token of its own."""

_PAREN_ATTRIBUTES = {"ALLOCA_FLAG", "ASM_FLAG", "ALIGN"}
"""Keyword terminals whose words are also attributes with arguments (`inalloca(%T)`,
`alignstack(16)`, `align(16)`); other keywords followed by `(` are lexed apart from it."""


class Lexer:
    """Splits text into `Tok`s. Keywords and punctuation come from the grammar's terminals."""

    def __init__(self, terminals: list) -> None:
        keywords: dict[str, str] = {}
        symbols: dict[str, str] = {}
        for term in terminals:
            pat = term.pattern
            if isinstance(pat, PatternStr):
                words = [pat.value]
            elif isinstance(pat, PatternRE) and (m := _WORD_SET.match(pat.value)):
                words = m.group(1).split("|")
            else:
                raise ValueError(f"terminal {term.name} must be %declare'd or a string/word set")
            for w in words:
                table = keywords if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", w) else symbols
                if w in table:
                    raise ValueError(f"{w!r} is in both {table[w]} and {term.name}")
                table[w] = term.name
        self.keywords = keywords
        self.symbols = symbols
        self.regex = re.compile(_SKIP + "(?:" + "|".join(f"({rx})" for _, rx in _FAMILIES) + ")")

    def tokens(self, text: str, offset: int = 0, end: int | None = None) -> Iterator[tuple[str, str, int]]:
        """(terminal, text, offset) of each token of `text[offset:end]`.

        Every character belongs to some match (whitespace and comments are skipped
        before each token, anything else is at worst a BAD token), so finditer never
        skips text; a sentinel after the end stops it without retrying on the
        trailing whitespace. Raises SyntaxProblem at a character no terminal matches.

        One long function on purpose: it runs once per token of every module read,
        and the dispatch on the matched family stays inline (a call per token would
        cost parse time in the lexer's hot loop).
        """
        keywords = self.keywords
        symbols = self.symbols
        f_name, f_label, f_cstr, f_word, f_num, f_comma, f_punct, f_bang, f_str, f_hash, f_comdat, f_other, f_bad = range(1, 14)
        sentinel_at = -1
        if end is None:
            text += _SENTINEL
            end = len(text)
            sentinel_at = end - 1
        for m in self.regex.finditer(text, offset, end):
            fam = m.lastindex
            s = m.group(fam)
            if fam == f_name:
                yield ("LOCAL" if s[0] == "%" else "GLOBAL"), s, m.start(fam)
            elif fam == f_word:
                if s[-1] == ")":
                    word = s[: s.index("(")]
                    kind = _PAREN_KEYWORDS.get(word) or keywords.get(word)
                    if kind is None and word[0] == "i" and word[1:].isdigit():
                        kind = "INTTYPE"  # `i32(ptr, ...)`: a function type without the space
                    if kind is None or kind in _PAREN_ATTRIBUTES:
                        kind = "ATTR_PAREN"
                    elif kind not in ("SYNCSCOPE", "GEPFLAG"):
                        # A keyword followed by its own operand list: `addrspace(1)`,
                        # `blockaddress(@f, %bb)`, `comdat($c)`: lex the pieces.
                        start = m.start(fam)
                        yield kind, word, start
                        yield from self.tokens(text, start + len(word), m.end())
                        continue
                else:
                    kind = keywords.get(s)
                    if kind is None:
                        if s[0] == "i" and s[1:2].isdigit():
                            digits = len(s) - len(s[1:].lstrip("0123456789"))
                            if digits < len(s):  # `i64noundef`: LLVM's lexer ends a type at its digits
                                start = m.start(fam)
                                yield "INTTYPE", s[:digits], start
                                yield from self.tokens(text, start + digits, m.end())
                                continue
                            kind = "INTTYPE"
                        else:
                            kind = "WORD"
                yield kind, s, m.start(fam)
            elif fam == f_punct:
                if s not in symbols:  # punctuation LLVM's grammar never uses (`*`)
                    raise SyntaxProblem(m.start(fam), f"unexpected character {s!r}")
                yield symbols[s], s, m.start(fam)
            elif fam == f_comma:
                if len(s) == 1:
                    yield "COMMA", s, m.start(fam)
                else:
                    rest = s[1:].lstrip()
                    if rest[0] == "!":
                        kind = "ATTACH_REF" if rest.count("!") == 2 else "ATTACH"
                    else:
                        kind = "COMMA_ALIGN" if rest == "align" else "COMMA_ADDRSPACE"
                    yield kind, s, m.start(fam)
            elif fam == f_num:
                yield ("FLOAT" if ("." in s or "x" in s) else "INT"), s, m.start(fam)
            elif fam == f_bang:
                second = s[1]
                if second.isdigit():
                    kind = "MDREF"
                elif second == '"':
                    kind = "MDSTRING"
                elif second == "{":
                    kind = "MDOPEN"
                elif s[-1] == "(":
                    kind = "DIARGLIST"
                elif s[-1] == ")":
                    kind = "MDSPECIAL"
                else:
                    kind = "MDKIND"
                yield kind, s, m.start(fam)
            elif fam == f_label:
                yield "LABEL_DEF", s, m.start(fam)
            elif fam == f_str:
                yield ("STRATTR" if '"="' in s else "STRING"), s, m.start(fam)
            elif fam == f_cstr:
                yield ("CSTRING" if s[0] == "c" else "INT"), s, m.start(fam)
            elif fam == f_hash:
                yield ("DBGREC" if s[1] == "d" else "ATTRGRP"), s, m.start(fam)
            elif fam == f_comdat:
                yield "COMDATREF", s, m.start(fam)
            elif fam == f_other:
                if m.start(fam) == sentinel_at:
                    return
                if s not in symbols:
                    raise SyntaxProblem(m.start(fam), f"unexpected character {s!r}")
                yield symbols[s], s, m.start(fam)
            else:
                raise SyntaxProblem(m.start(fam), f"unexpected character {s!r}")


class _NoLexer(lark.lexer.Lexer):
    """Stands in for lark's lexer, which `Engine` never runs."""

    def __init__(self, lexer_conf: Any) -> None:
        pass

    def lex(self, lexer_state: Any, parser_state: Any) -> Iterator[Any]:
        raise NotImplementedError("enzc.ir uses its own lexer")


def _single_child_only(name: str) -> Callable[[list], Any]:
    """The callback of a `?rule` whose alternatives all have one child: never called."""

    def fail(children: list) -> Any:
        raise AssertionError(f"grammar rule {name} reduced with {len(children)} children")

    return fail


def _make_reducer(rule: Any, callback: Callable | None) -> Callable[[list], Any] | None:
    """What lark's tree builder does for `rule`, compiled into one small function.

    Filtered tokens (anonymous punctuation and keywords) are dropped, children from
    `_rules` are spliced in, `[x]` placeholders become None, a `?rule` with a single
    child returns that child, and the rest goes to `callback` (a `_rule` without one
    returns its children for the parent to splice). None means "the child itself".
    """
    expansion = rule.expansion
    empty = rule.options.empty_indices
    if empty:
        runs = "".join(str(int(b)) for b in empty).split("0")
        nones = [len(r) for r in runs]
    else:
        nones = [0] * (len(expansion) + 1)
    items: list[str] = []
    for i, sym in enumerate(expansion):
        items.extend(["None"] * nones[i])
        if sym.is_term and sym.filter_out:
            continue
        items.append(f"*c[{i}]" if not sym.is_term and sym.name.startswith("_") else f"c[{i}]")
    items.extend(["None"] * nones[len(expansion)])
    expand1 = rule.options.expand1 and not rule.alias
    if expand1 and len(items) == 1 and not items[0].startswith("*"):
        return None  # always the single child itself
    plain = items == [f"c[{i}]" for i in range(len(expansion))]
    if callback is None:
        return (lambda c: c) if plain else eval(f"lambda c: [{', '.join(items)}]")  # noqa: S307 - generated here
    if plain and not expand1:
        return callback
    children = "c" if plain else f"[{', '.join(items)}]"
    if expand1:
        src = f"lambda c: (lambda o: o[0] if len(o) == 1 else cb(o))({children})"
    else:
        src = f"lambda c: cb({children})"
    return eval(src, {"cb": callback})  # noqa: S307 - generated from the grammar's rules


class Engine:
    """A lark grammar's LALR tables and callbacks, driven over our `Lexer`.

    `transformer` supplies the rule callbacks (by rule or alias name) and terminal
    callbacks (by terminal name), as for lark's inline transformers.
    """

    def __init__(self, transformer: Any, starts: list[str], grammar_path: Path = GRAMMAR_PATH) -> None:
        parser = lark.Lark(
            grammar_path.read_text(), parser="lalr", lexer=_NoLexer, start=starts,
            maybe_placeholders=True, cache=_table_cache(),
        )
        table = parser.parser.parser.parser.parse_table  # lark's LALR analysis of the grammar
        self.lexer = Lexer(parser.terminals)
        reducers: dict[Any, tuple[int, Callable, str]] = {}
        for rule in parser.rules:
            name = rule.alias or rule.origin.name
            callback = getattr(transformer, name, None)
            if callback is None and rule.options.expand1 and not rule.alias:
                callback = _single_child_only(name)
            elif callback is None and not name.startswith("_"):
                raise ValueError(f"no callback for grammar rule {name!r}")
            reducers[rule] = (len(rule.expansion), _make_reducer(rule, callback), rule.origin.name)
        token_callbacks = {
            n: getattr(transformer, n)
            for n in {sym for row in table.states.values() for sym in row if sym.isupper()}
            if callable(getattr(transformer, n, None))
        }
        # How a shifted token is pushed: None (no rule keeps it: punctuation, most
        # keywords), True (as a Tok), or the terminal callback's result on (text, offset).
        kept = {sym.name for rule in parser.rules for sym in rule.expansion if sym.is_term and not sym.filter_out}
        push_mode = {n: token_callbacks.get(n, True) for n in kept | set(token_callbacks)}

        shifts: dict[int, dict[str, int]] = {}
        reduces: dict[int, dict[str, tuple[int, Any, str]]] = {}
        gotos: dict[int, dict[str, int]] = {}
        for state, row in table.states.items():
            shifts[state], reduces[state], gotos[state] = {}, {}, {}
            for sym, (action, arg) in row.items():
                if action is not Shift:
                    reduces[state][sym] = reducers[arg]
                elif sym.isupper() or sym == "$END":
                    shifts[state][sym] = arg
                else:
                    gotos[state][sym] = arg
        # A state whose only action is one reduction of a single symbol ("default
        # reduction") is left at once; since the state below it is known where we
        # enter it, shifts and gotos can jump straight to where those reductions end,
        # applying their reducers on the way.
        unit: dict[int, tuple[Any, str]] = {}
        for state in table.states:
            acts = set(map(id, reduces[state].values()))
            if not shifts[state] and len(acts) == 1:
                size, reducer, lhs = next(iter(reduces[state].values()))
                if size == 1:
                    unit[state] = (reducer, lhs)

        def landing(below: int, target: int) -> tuple[int, tuple]:
            chain = []
            while target in unit:
                reducer, lhs = unit[target]
                if reducer is not None:
                    chain.append(reducer)
                target = gotos[below][lhs]
            return target, tuple(chain)

        # actions[state][terminal]: (True, state, chain, push mode) to shift, or
        # (False, size, reducer, lhs) to reduce; goto[state][nonterminal]: (state, chain).
        self.actions: list[dict[str, tuple]] = []
        self.goto: list[dict[str, tuple[int, tuple]]] = []
        for state in range(len(table.states)):
            row: dict[str, tuple] = {sym: (False, *red) for sym, red in reduces[state].items()}
            for sym, target in shifts[state].items():
                row[sym] = (True, *landing(state, target), push_mode.get(sym))
            self.actions.append(row)
            self.goto.append({sym: landing(state, target) for sym, target in gotos[state].items()})
        self.start_states = dict(table.start_states)
        self.end_states = dict(table.end_states)

    def parse(self, text: str, start: str) -> Any:
        """Parse `text` from rule `start`; returns the start rule's callback result."""
        actions = self.actions
        goto = self.goto
        state = self.start_states[start]
        end_state = self.end_states[start]
        state_stack = [state]
        value_stack: list[Any] = []
        push_state = state_stack.append
        push_value = value_stack.append
        for ttype, value, pos in self.lexer.tokens(text):
            while True:
                act = actions[state].get(ttype)
                if act is None:
                    raise self._unexpected(ttype, value, pos, actions[state])
                if act[0]:
                    _, state, chain, mode = act
                    push_state(state)
                    if mode is None:
                        push_value(None)
                    elif mode is True:
                        tok = Tok(value)
                        tok.type = ttype
                        tok.pos = pos
                        push_value(tok)
                    else:
                        push_value(mode(value, pos))
                    for reducer in chain:
                        value_stack[-1] = reducer([value_stack[-1]])
                    break
                _, size, reducer, lhs = act
                if size == 1:
                    if reducer is not None:
                        value_stack[-1] = reducer([value_stack[-1]])
                    state, chain = goto[state_stack[-2]][lhs]
                    state_stack[-1] = state
                else:
                    if size:
                        children = value_stack[-size:]
                        del state_stack[-size:]
                        del value_stack[-size:]
                    else:
                        children = []
                    push_value(reducer(children))
                    state, chain = goto[state_stack[-1]][lhs]
                    push_state(state)
                for reducer in chain:
                    value_stack[-1] = reducer([value_stack[-1]])
        # End of input: reduce until the start rule is complete.
        while state != end_state:
            act = actions[state].get("$END")
            if act is None or act[0]:
                raise self._unexpected("$END", "", len(text), actions[state])
            _, size, reducer, lhs = act
            if size:
                children = value_stack[-size:]
                del state_stack[-size:]
                del value_stack[-size:]
            else:
                children = []
            push_value(children[0] if reducer is None else reducer(children))
            state, chain = goto[state_stack[-1]][lhs]
            push_state(state)
            for reducer in chain:
                value_stack[-1] = reducer([value_stack[-1]])
        return value_stack[-1]

    @staticmethod
    def _unexpected(ttype: str, value: str, pos: int, row: dict[str, Any]) -> SyntaxProblem:
        expected = sorted({describe_token(t) for t in row if t.isupper() or t == "$END"})
        shown = ", ".join(expected[:8]) + (", ..." if len(expected) > 8 else "")
        what = "end of input" if ttype == "$END" else "end of line" if ttype == "END" else f"'{value}'"
        return SyntaxProblem(pos, f"unexpected {what}; expected {shown}")
