"""The engine under the IR parser: lark's LALR(1) tables, a context-free lexer, a tight driver.

lark analyses `llvm.lark` and builds the LALR tables and the per-rule callbacks
(child filtering, `_rule` inlining, `?rule` expansion, `[x]` placeholders) around
our transformer. Running lark's own lexer and parser loop over multi-megabyte
modules is several times too slow, so this module replaces those two hot loops:

- `Lexer`: LLVM's lexical grammar is context-free, so one compiled regex with a
  named group per terminal (tried in priority order) finds every token in a single
  `finditer` pass; words are then classified by exact lookup among the keyword
  terminals. Tokens are `Tok` strings carrying their type and offset only; line and
  column are computed from the offset when an error is reported.
- `Engine.parse`: the shift/reduce loop over lark's tables, calling lark's callbacks.

Errors come out as `SyntaxProblem(offset, message)`; parser.py turns offsets into
`file:line:col`.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Callable, Iterator

import lark
from lark.lexer import PatternRE, PatternStr
from lark.parsers.lalr_analysis import Shift

GRAMMAR_PATH = Path(__file__).with_name("llvm.lark")

_WORD_SET = re.compile(r"\(\?:([A-Za-z0-9_|]+)\)\Z")
"""A keyword-set terminal: lark spells `"a" | "b"` as `(?:a|b)`."""

_SKIP = r"(?:[ \t\r\n]++|;[^\n\x00]*+)*+"
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
    ("COMMA", r",[ \t]*(?:align(?![-\w.$])|addrspace(?=\()|![-a-zA-Z$._\\][-a-zA-Z$._0-9\\]*(?![-a-zA-Z$._0-9\\(]))|,"),
    ("PUNCT", r"[(){}\[\]<>=*]"),
    ("BANG", r'!(?:[0-9]+|"[^"]*"|\{|DIArgList\(|[A-Za-z]+' + _PARENS + r"|[-a-zA-Z$._\\][-a-zA-Z$._0-9\\]*)"),
    ("STR", r'"[^"]*"(?:="[^"]*")?'),
    ("HASH", r"#dbg_[a-z_]+\(|#[0-9]+"),
    ("COMDATREF", r"\$" + _NAME),
    ("OTHER", r"\.\.\.|\x00"),
]
_F = {name: i + 1 for i, (name, _) in enumerate(_FAMILIES)}

_PAREN_KEYWORDS = {"syncscope": "SYNCSCOPE", "inrange": "GEPFLAG"}
"""Words whose `word(...)` spelling is one token of its own."""


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
        self.trailing = re.compile(_SKIP + r"\Z")

    def tokens(self, text: str, offset: int = 0, end: int | None = None) -> Iterator[Tok]:
        """The tokens of `text[offset:end]`; SyntaxProblem at the first character no token matches."""
        keywords = self.keywords
        symbols = self.symbols
        f_name, f_label, f_cstr, f_word, f_num, f_comma, f_punct, f_bang, f_str, f_hash, f_comdat, f_other = range(1, 13)
        # Trailing whitespace is cut off first: finditer would retry a failing match at
        # every one of its characters.
        end = len(text.rstrip()) if end is None else end
        pos = offset
        for m in self.regex.finditer(text, offset, end):
            if m.start() != pos:
                break
            pos = m.end()
            fam = m.lastindex
            start = m.start(fam)
            s = m.group(fam)
            if fam == f_name:
                kind = "LOCAL" if s[0] == "%" else "GLOBAL"
            elif fam == f_word:
                if s[-1] == ")":
                    word = s[: s.index("(")]
                    kind = _PAREN_KEYWORDS.get(word) or keywords.get(word)
                    if kind is None:
                        kind = "ATTR_PAREN"
                    elif kind not in ("SYNCSCOPE", "GEPFLAG"):
                        # A keyword followed by its own operand list: `addrspace(1)`,
                        # `blockaddress(@f, %bb)`, `comdat($c)`: lex the pieces.
                        tok = Tok(word)
                        tok.type = kind
                        tok.pos = start
                        yield tok
                        yield from self.tokens(text, start + len(word), pos)
                        continue
                else:
                    kind = keywords.get(s)
                    if kind is None:
                        kind = "INTTYPE" if s[0] == "i" and s[1:].isdigit() else "WORD"
            elif fam == f_punct:
                kind = symbols[s]
            elif fam == f_num:
                kind = "FLOAT" if ("." in s or "x" in s) else "INT"
            elif fam == f_comma:
                if len(s) == 1:
                    kind = "COMMA"
                else:
                    last = s[-1]
                    rest = s[1:].lstrip()
                    kind = "ATTACH" if rest[0] == "!" else "COMMA_ALIGN" if rest == "align" else "COMMA_ADDRSPACE"
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
            elif fam == f_label:
                kind = "LABEL_DEF"
            elif fam == f_str:
                kind = "STRATTR" if '"="' in s else "STRING"
            elif fam == f_cstr:
                kind = "CSTRING" if s[0] == "c" else "INT"
            elif fam == f_hash:
                kind = "DBGREC" if s[1] == "d" else "ATTRGRP"
            elif fam == f_comdat:
                kind = "COMDATREF"
            else:
                kind = symbols[s]
            tok = Tok(s)
            tok.type = kind
            tok.pos = start
            yield tok
        if pos < end and not self.trailing.match(text, pos, end):
            skip = re.compile(_SKIP).match(text, pos, end)
            bad = skip.end() if skip else pos
            raise SyntaxProblem(bad, f"unexpected character {text[bad]!r}")


class _NoLexer(lark.lexer.Lexer):
    """Stands in for lark's lexer, which `Engine` never runs."""

    def __init__(self, lexer_conf: Any) -> None:
        pass

    def lex(self, lexer_state: Any, parser_state: Any) -> Iterator[Any]:
        raise NotImplementedError("enzc.ir uses its own lexer")


class Engine:
    """A lark grammar's LALR tables and callbacks, driven over our `Lexer`.

    `transformer` supplies the rule callbacks (by rule or alias name) and terminal
    callbacks (by terminal name), as for lark's inline transformers.
    """

    def __init__(self, transformer: Any, starts: list[str], grammar_path: Path = GRAMMAR_PATH) -> None:
        parser = lark.Lark(
            grammar_path.read_text(), parser="lalr", lexer=_NoLexer, start=starts,
            transformer=transformer, maybe_placeholders=True, cache=True,
        )
        inner = parser.parser.parser.parser  # lark's _Parser: parse table + callbacks
        table = inner.parse_table
        callbacks = inner.callbacks
        self.lexer = Lexer(parser.terminals)
        # Pre-digest the table: shift -> (True, state); reduce -> (False, (size, callback, lhs)).
        reduce_info: dict[Any, tuple[int, Callable, str]] = {}
        states: dict[int, dict[str, tuple[bool, Any]]] = {}
        for state, row in table.states.items():
            out = {}
            for sym, (action, arg) in row.items():
                if action is Shift:
                    out[sym] = (True, arg)
                else:
                    info = reduce_info.get(arg)
                    if info is None:
                        info = reduce_info[arg] = (len(arg.expansion), callbacks[arg], arg.origin.name)
                    out[sym] = (False, info)
            states[state] = out
        self.states = states
        self.start_states = dict(table.start_states)
        self.end_states = dict(table.end_states)
        # Terminal callbacks by terminal name (lark only wires those of terminals it lexes).
        names = {sym for row in table.states.values() for sym in row if sym.isupper()}
        self.token_callbacks = {n: getattr(transformer, n) for n in names if callable(getattr(transformer, n, None))}

    def parse(self, text: str, start: str) -> Any:
        """Parse `text` from rule `start`; returns the start rule's callback result."""
        states = self.states
        tcb = self.token_callbacks
        state = self.start_states[start]
        end_state = self.end_states[start]
        state_stack = [state]
        value_stack: list[Any] = []
        push_state = state_stack.append
        push_value = value_stack.append
        tok: Tok | None = None
        for tok in self.lexer.tokens(text):
            ttype = tok.type
            while True:
                try:
                    shift, arg = states[state][ttype]
                except KeyError:
                    raise self._unexpected(tok, states[state]) from None
                if shift:
                    push_state(arg)
                    state = arg
                    cb = tcb.get(ttype)
                    push_value(tok if cb is None else cb(tok))
                    break
                size, callback, lhs = arg
                if size:
                    children = value_stack[-size:]
                    del state_stack[-size:]
                    del value_stack[-size:]
                else:
                    children = []
                value = callback(children)
                state = states[state_stack[-1]][lhs][1]
                push_state(state)
                push_value(value)
        # End of input: reduce until the start rule is complete.
        while True:
            try:
                shift, arg = states[state]["$END"]
            except KeyError:
                end = Tok("")
                end.type = "$END"
                end.pos = len(text)
                raise self._unexpected(end, states[state]) from None
            size, callback, lhs = arg
            if size:
                children = value_stack[-size:]
                del state_stack[-size:]
                del value_stack[-size:]
            else:
                children = []
            value = callback(children)
            state = states[state_stack[-1]][lhs][1]
            push_state(state)
            push_value(value)
            if state == end_state:
                return value_stack[-1]

    @staticmethod
    def _unexpected(tok: Tok, row: dict[str, Any]) -> SyntaxProblem:
        expected = sorted({describe_token(t) for t in row if t.isupper() or t == "$END"})
        shown = ", ".join(expected[:8]) + (", ..." if len(expected) > 8 else "")
        what = "end of input" if tok.type == "$END" else f"'{tok}'"
        return SyntaxProblem(tok.pos, f"unexpected {what}; expected {shown}")
