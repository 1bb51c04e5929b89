"""Parse LLVM textual IR into enzc's IR objects, with lazily parsed function bodies.

How a module is read:
1. A line scanner splits the text into top-level entities by their first word:
   function definitions (`define ... {` up to the next line starting with `}`),
   metadata (`!...`), attribute groups, the header lines (`source_filename`,
   `target ...`, `module asm`), and everything else (types, comdats, globals,
   aliases, declarations, function headers).
2. The "everything else" lines go through the LALR parser in one run, from a copy of
   the text in which all other lines are blank (so positions are the file's) and
   each entity ends with a NUL.
3. Metadata and attribute groups are parsed line by line with regexes
   (parser_metadata.py), after the globals exist (metadata may name them).
4. Each function keeps its definition text; its body is parsed on first access of
   `Function.blocks` (or at once with `lazy=False`). Untouched bodies print verbatim.

All problems surface as `IRParseError` with the file's line and column.
"""

from __future__ import annotations

import gc
import re
import threading
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Iterator

from enzc.ir.errors import IRParseError, position
from enzc.ir.module import BasicBlock, Function, Module
from enzc.ir.names import unescape, unquote_name
from enzc.ir.parser_lalr import Engine, SyntaxProblem
from enzc.ir.parser_metadata import LazyContext, MDSyntax, lazy_definition, parse_attribute_group, parse_definition
from enzc.ir.parser_transform import Builder, BuildError

_CLOSE_BRACE = re.compile(r"^\}", re.M)
_FUNCTION_NAME = re.compile(r'@(?:"[^"]*"|[-a-zA-Z$._0-9]+)\(')
_BRACKETS = re.compile(r'"[^"]*"|;[^\n]*|[(){}]')
_MD_RUN = re.compile(r"(?:![^\n]*(?:\n|\Z)(?:([ \t]+[^\s;][^\n]*(?:\n|\Z)))*)+")
"""A run of metadata lines; group 1 is set if some line continues on an indented one."""


_BRACE_OR_STRING = re.compile(r'"[^"]*"|[{}]')


def _attribute_group_end(text: str, pos: int, eol: int) -> int:
    """End of the attribute group starting at `pos`: its line, or, when LLVM-accepted
    line breaks split it, the line holding its closing `}`."""
    depth = 0
    for m in _BRACE_OR_STRING.finditer(text, pos):
        token = m.group()
        if token == "{":
            depth += 1
        elif token == "}":
            depth -= 1
            if depth == 0:
                return max(eol, m.end()) if m.end() <= eol else m.end()
    return eol


_STRING_OR_NEWLINE = re.compile(r'"[^"]*"|\n')


def _join_group_lines(group: str) -> str:
    """An attribute group split over lines on one line; a line break inside a string
    is the string's text (LLVM keeps it), elsewhere it separates like a space."""
    return _STRING_OR_NEWLINE.sub(lambda m: " " if m.group() == "\n" else m.group(), group)


def _join_continuations(lines: list[tuple[int, str]]) -> list[tuple[int, str]]:
    """Indented lines continue the metadata definition above them; inside a string
    (an odd number of quotes so far) the line break and indentation are its text."""
    out: list[tuple[int, str]] = []
    for lineno, line in lines:
        if line[:1] in (" ", "\t") and out:
            above = out[-1][1]
            joined = above + "\n" + line if above.count('"') % 2 else above.rstrip() + " " + line.strip()
            out[-1] = (out[-1][0], joined)
        else:
            out.append((lineno, line))
    return out
_HEADER_LINE = re.compile(
    r'(?:(source_filename)[ \t]*=[ \t]*"([^"]*)"'
    r'|target[ \t]+(datalayout|triple)[ \t]*=[ \t]*"([^"]*)"'
    r'|(module)[ \t]+asm[ \t]+"([^"]*)")[ \t]*(?:;.*)?\Z'
)

_engine: Engine | None = None
_builder: Builder | None = None
_lock = threading.RLock()
"""One parse at a time: the builder holds the state of the body being parsed (and
the GIL would serialize the work anyway). Reentrant: `lazy=False` parses bodies
from within `parse_module`."""


def _get_engine() -> tuple[Engine, Builder]:
    """The grammar tables are built once per process (and cached on disk by lark)."""
    global _engine, _builder
    if _engine is None:
        builder = Builder()
        engine = _engine = Engine(builder, ["module", "body", "lone_type"])
        builder.parse_type_text = lambda text: engine.parse(text, "lone_type")
        _builder = builder
    assert _builder is not None
    return _engine, _builder


@contextmanager
def _gc_paused() -> Iterator[None]:
    """Parsing allocates hundreds of thousands of objects and frees almost none; the
    cyclic collector's passes over them cost a third of the time and find nothing."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


@dataclass
class _Definition:
    """Where a function definition sits in the module text."""

    start: int
    """Offset of `define`."""
    brace: int
    """Offset of the `{` that opens the body."""
    close: int
    """Offset of the closing `}`."""
    brace_line: int
    brace_column: int


def _decode(s: str) -> str:
    return unescape(s).decode("utf-8", "surrogateescape")


class _ModuleReader:
    """One parse of one module text."""

    def __init__(self, text: str, filename: str) -> None:
        self.text = text
        self.filename = filename
        self.module = Module()
        self.pieces: list[str] = []
        self.open_entity = -1
        self.definitions: list[_Definition] = []
        self.md_lines: list[tuple[int, str]] = []
        self.attr_lines: list[tuple[int, str]] = []
        self.type_lines: dict[str, int] = {}
        """Named struct -> the line defining it: LLVM reads the file in order, and a
        body before the definition sees the type opaque (unsized)."""

    def error(self, line: int, column: int, message: str) -> IRParseError:
        return IRParseError(self.filename, line, column, message)

    def _close_entity(self) -> None:
        if self.open_entity >= 0:
            self.pieces[self.open_entity] += "\x00"
            self.open_entity = -1

    def scan(self) -> None:
        """Sort the lines of the text by kind (step 1)."""
        text = self.text
        n = len(text)
        pieces = self.pieces
        pos = 0
        lineno = 1
        started = False  # an entity came: header lines (source_filename, target) must not
        while pos < n:
            eol = text.find("\n", pos)
            if eol < 0:
                eol = n
            c = text[pos] if pos < eol else "\n"
            if c == "!":
                # Metadata comes in long runs of lines: take the whole run at once.
                self._close_entity()
                started = True
                run = _MD_RUN.match(text, pos)
                lines = text[pos : run.end()].split("\n")  # type: ignore[union-attr]
                if lines[-1] == "":
                    lines.pop()
                numbered = list(zip(range(lineno, lineno + len(lines)), lines))
                if run.group(1) is not None:  # type: ignore[union-attr]
                    numbered = _join_continuations(numbered)
                self.md_lines.extend(numbered)
                pieces.extend([""] * len(lines))
                lineno += len(lines)
                pos = run.end()  # type: ignore[union-attr]
                continue
            elif c == ";" and (cr := text.find("\r", pos, eol)) >= 0:
                pos = cr + 1  # LLVM ends a comment at a carriage return too: read on after it
                continue
            elif c == "\r" and text[pos:eol].strip():
                pos += 1  # a carriage return is whitespace to LLVM, not a line end (ll:4300048)
                continue
            elif c == ";" or c == "\n" or c == "\r":
                pieces.append("")
            elif c == "d" and text.startswith("define", pos) and not text[pos + 6 : pos + 7].isalnum():
                self._close_entity()
                started = True
                pos, lineno = self._definition(pos, lineno)
                continue
            elif c == "a" and text.startswith("attributes", pos):
                self._close_entity()
                end = _attribute_group_end(text, pos, eol)
                lines = text.count("\n", pos, end)
                self.attr_lines.append((lineno, _join_group_lines(text[pos:end]).rstrip()))
                pieces.extend([""] * (lines + 1))
                if lines:
                    lineno += lines
                    eol = text.find("\n", end) if end < n else n
                    eol = n if eol < 0 else eol
            elif c in "stm" and (m := _HEADER_LINE.match(text[pos:eol].rstrip())):
                self._close_entity()
                if started and m.group(5) is None:  # LLVM reads these before any entity
                    raise self.error(lineno, 1, "expected top-level entity (source_filename "
                                     "and target lines come before everything else)")
                self._header_line(m)
                started = started or m.group(5) is not None  # `module asm` is an entity (ll:6509847)
                pieces.append("")
                pos, lineno = eol + 1, lineno + 1
                continue
            elif c == "^" or (c == "u" and text.startswith("uselistorder", pos)):
                self._close_entity()
                self.module.extra_lines.append(text[pos:eol].rstrip())
                pieces.append("")
            elif c in " \t" and not text[pos:eol].strip():
                pieces.append("")
                pos, lineno = eol + 1, lineno + 1
                continue
            else:
                # An entity starts with its name or `declare`; any other line continues
                # the open one (LLVM's grammar ignores line breaks; LLVM never breaks).
                if c in "@%$" or text.startswith("declare", pos) or self.open_entity < 0:
                    self._close_entity()
                if c == "%" and (typedef := _TYPEDEF.match(text, pos, eol)):
                    self.type_lines.setdefault(_type_name(typedef.group(1)), lineno)
                pieces.append(text[pos:eol])
                self.open_entity = len(pieces) - 1
            started = started or c not in ";\n\r"
            pos = eol + 1
            lineno += 1
        self._close_entity()

    def _header_line(self, m: re.Match) -> None:
        mod = self.module
        if m.group(1):
            mod.source_filename = _decode(m.group(2))
        elif m.group(3) == "datalayout":
            mod.datalayout = _decode(m.group(4))
        elif m.group(3) == "triple":
            mod.triple = _decode(m.group(4))
        else:
            mod.module_asm.append(_decode(m.group(6)))

    def _definition(self, pos: int, lineno: int) -> tuple[int, int]:
        """Record a `define` whose first line starts at `pos`; returns the position after it."""
        text = self.text
        n = len(text)
        eol = text.find("\n", pos)
        first = text[pos : eol if eol >= 0 else n].rstrip()
        m = _CLOSE_BRACE.search(text, pos) if first.endswith("{") else None
        if m is not None:
            # LLVM's layout: the header is one line ending in `{`, the body ends at a
            # line starting with `}` (found without looking at the body).
            brace, close = pos + len(first) - 1, m.start()
        else:
            brace, close = self._definition_braces(pos, lineno)
        header_lines = text.count("\n", pos, brace)
        brace_line = lineno + header_lines
        brace_column = brace - (text.rfind("\n", 0, brace) + 1) + 1
        self.definitions.append(_Definition(pos, brace, close, brace_line, brace_column))
        header = text[pos : brace + 1].split("\n")
        header[-1] += "\x00"
        self.pieces.extend(header)
        end = text.find("\n", close)
        if end < 0:
            end = n
        rest = text[close + 1 : end].lstrip(" \t\r")
        if rest and not rest.startswith(";"):
            line = brace_line + text.count("\n", brace + 1, close)
            column = close + 1 - (text.rfind("\n", 0, close) + 1) + 1
            raise self.error(line, column + len(text[close + 1 : end]) - len(rest),
                             "expected top-level entity after the function's closing '}'")
        body_lines = text.count("\n", brace + 1, end)
        self.pieces.extend([""] * body_lines)
        if end < n:
            return end + 1, brace_line + body_lines + 1
        return n, brace_line + body_lines

    def _definition_braces(self, pos: int, lineno: int) -> tuple[int, int]:
        """Offsets of a body's `{` and `}` in layouts llvm-as accepts but LLVM does not
        print (a one-line function, a body starting on the header line): the first
        `{` after the parameter list and its matching `}`, skipping strings and
        comments. (A prefix/prologue constant with braces needs LLVM's layout.)"""
        text = self.text
        name = _FUNCTION_NAME.search(text, pos)
        if name is None:
            raise self.error(lineno, 1, "expected a function name and parameter list after 'define'")
        depth = 0
        brace = -1
        after_params = False
        for m in _BRACKETS.finditer(text, name.end() - 1):
            tok = m.group()
            if tok == "{" and depth == 0 and after_params:
                brace = m.start()
                break
            if tok in ("(", "{"):
                depth += 1
            elif tok in (")", "}"):
                depth -= 1
                after_params = after_params or depth == 0
        if brace < 0:
            line, column = position(text, name.start())
            raise self.error(line, column, "expected '{' to start the function body")
        depth = 0
        for m in _BRACKETS.finditer(text, brace):
            tok = m.group()
            if tok == "{":
                depth += 1
            elif tok == "}":
                depth -= 1
                if depth == 0:
                    return brace, m.start()
        line, column = position(text, brace)
        raise self.error(line, column, "function body has no closing '}'")

    def parse(self, lazy: bool) -> Module:
        self.scan()
        engine, builder = _get_engine()
        module = self.module
        eager = "\n".join(self.pieces)
        builder.begin_module(module)
        try:
            engine.parse(eager, "module")
            builder.resolve_module()
        except (SyntaxProblem, BuildError) as e:
            raise self.error(*position(eager, e.pos), e.message) from None
        self._metadata(lazy)
        self._attribute_groups()
        for fn, names, d in zip(builder.defined_functions, builder.header_arg_names, self.definitions):
            self._make_lazy(fn, names, d)
        if not lazy:
            for fn in list(module.functions.values()):  # bodies may declare intrinsics
                fn.blocks  # noqa: B018 - parse now
        return module

    def _metadata(self, lazy: bool) -> None:
        """Numbered nodes are split lazily (their outline is checked now) unless `lazy` is off."""
        module = self.module
        ctx = LazyContext(self.filename, module.get_global)
        for lineno, line in self.md_lines:
            line = line.rstrip()
            try:
                key, node = lazy_definition(line, ctx, lineno) if lazy else parse_definition(line, ctx.resolve)
            except MDSyntax as e:
                raise self.error(lineno, e.column, e.message) from None
            if isinstance(node, list):
                if key in module.named_metadata:
                    raise self.error(lineno, 1, f"redefinition of named metadata '!{key}'")
                module.named_metadata[key] = node
            else:
                if key in module.metadata:
                    raise self.error(lineno, 1, f"metadata id '!{key}' is already defined")
                module.metadata[key] = node

    def _attribute_groups(self) -> None:
        groups = self.module.attribute_groups
        for lineno, line in self.attr_lines:
            try:
                key, attrs = parse_attribute_group(line)
            except MDSyntax as e:
                raise self.error(lineno, e.column, e.message) from None
            if key in groups:
                raise self.error(lineno, 1, f"attribute group '#{key}' is already defined")
            groups[key] = attrs

    def _make_lazy(self, fn: Function, arg_names: list[str | None], d: _Definition) -> None:
        module = self.module
        filename = self.filename
        source = self.text[d.start : d.close + 1]
        body_start = d.brace + 1 - d.start
        body_end = d.close - d.start

        later_types = frozenset(name for name, line in self.type_lines.items() if line > d.brace_line)

        def materialize(f: Function) -> list[BasicBlock]:
            body = f.source_text[body_start:body_end] if f.source_text is not None else source[body_start:body_end]
            return _parse_body(module, f, body, arg_names, filename, d.brace_line, d.brace_column, later_types)

        fn.set_lazy_body(source, materialize)
        fn.source_header_key = fn.header_key()


def _parse_body(module: Module, fn: Function, body: str, arg_names: list[str | None], filename: str,
                brace_line: int, brace_column: int, later_types: frozenset[str] = frozenset()) -> list[BasicBlock]:
    """Parse one function body; positions are reported relative to the whole file.
    `later_types` are the named structs defined after it (opaque to LLVM here)."""
    with _lock:
        engine, builder = _get_engine()
        builder.begin_body(module, fn, arg_names, later_types)
        try:
            with _gc_paused():
                engine.parse(body, "body")
                return builder.finish_body(len(body))
        except RecursionError:
            builder.abandon_body()
            raise IRParseError(filename, brace_line, brace_column, TOO_DEEP) from None
        except (SyntaxProblem, BuildError) as e:
            builder.abandon_body()
            line, column = position(body, e.pos)
            if line == 1:
                column += brace_column
            raise IRParseError(filename, brace_line + line - 1, column, e.message) from None


_TYPEDEF = re.compile(r'%("[^"]*"|[-a-zA-Z$._0-9]+)[ \t]*=[ \t]*type\b')


def _type_name(spelled: str) -> str:
    """A type's name as the module keys it (quotes and escapes removed, `%04` is `4`)."""
    name = unquote_name("%" + spelled)
    return str(int(name)) if name[:1] == "0" and len(name) > 1 and name.isdigit() else name


_STRAY_NUL = re.compile(r'"[^"]*"|;[^\n]*|\0')


def _blank_nul(m: re.Match[str]) -> str:
    """LLVM reads a NUL outside a quoted string as white space (the scanner uses NUL to
    end entities, so it must not see one); inside quotes it is a character."""
    token = m.group()
    return token if token.startswith('"') else token.replace("\0", " ")


TOO_DEEP = "types, constants or metadata nested too deeply for enzc"


def parse_module(text: str, *, filename: str = "<stdin>", lazy: bool = True) -> Module:
    """Parse a module's text. With `lazy`, function bodies are parsed on first access."""
    if "\0" in text:
        text = _STRAY_NUL.sub(_blank_nul, text)
    with _lock, _gc_paused():
        try:
            return _ModuleReader(text, filename).parse(lazy)
        except RecursionError:  # enzc's model is recursive; LLVM's limit is its C++ stack
            raise IRParseError(filename, 1, 1, TOO_DEEP) from None
