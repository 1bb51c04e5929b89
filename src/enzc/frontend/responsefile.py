"""`@file` arguments: read more arguments from a file, as gcc and clang do on Unix.

Words are separated by whitespace; single and double quotes group, a backslash
escapes the next character. Files may name further `@file`s. An `@name` that is not
a readable file stays a literal argument (gcc's rule).
"""

from __future__ import annotations

from collections.abc import Sequence

from enzc.errors import EnzcError

_MAX_DEPTH = 32


def expand_response_files(args: Sequence[str], depth: int = 0) -> list[str]:
    """`args` with every readable `@file` replaced by the words it contains."""
    out: list[str] = []
    for arg in args:
        if not arg.startswith("@") or len(arg) == 1:
            out.append(arg)
            continue
        try:
            with open(arg[1:], encoding="utf-8", errors="surrogateescape") as f:
                text = f.read()
        except OSError:
            out.append(arg)
            continue
        if depth >= _MAX_DEPTH:
            raise EnzcError(f"enzcc: error: response files nested too deeply at '{arg}'")
        out.extend(expand_response_files(split_words(text), depth + 1))
    return out


def split_words(text: str) -> list[str]:
    """GNU-style tokenization of a response file's contents."""
    words: list[str] = []
    word: list[str] = []
    in_word = False
    quote: str | None = None
    chars = iter(text)
    for ch in chars:
        if ch == "\\":
            word.append(next(chars, ""))
            in_word = True
        elif quote is not None:
            if ch == quote:
                quote = None
            else:
                word.append(ch)
        elif ch in "'\"":
            quote = ch
            in_word = True
        elif ch.isspace():
            if in_word:
                words.append("".join(word))
                word, in_word = [], False
        else:
            word.append(ch)
            in_word = True
    if in_word:
        words.append("".join(word))
    return words
