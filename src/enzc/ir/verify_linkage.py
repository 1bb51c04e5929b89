"""The words around a global's, alias's or function's name, as LLVM's parser takes
them (the grammar here accepts any word there and keeps it as written).

Before the kind keyword come, each at most once and in this order: a linkage, a
preemption specifier, a visibility, a DLL storage class, `thread_local[(mode)]`, an
unnamed_addr kind, then for a variable `addrspace(N)` and `externally_initialized`
(a function's header allows the first four only). A local linkage takes neither a
visibility nor a DLL storage class, and `dso_local` no `dllimport`. After a
variable's initializer, a comma introduces `section`, `partition`, `code_model`,
`align`, `comdat` or a sanitizer keyword.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

_RANKS = {
    **dict.fromkeys(("private", "internal", "available_externally", "linkonce", "weak", "common",
                     "appending", "extern_weak", "linkonce_odr", "weak_odr", "external"), 0),
    "dso_local": 1, "dso_preemptable": 1,
    "default": 2, "hidden": 2, "protected": 2,
    "dllimport": 3, "dllexport": 3,
    "thread_local": 4, "thread_local(localdynamic)": 4, "thread_local(initialexec)": 4,
    "thread_local(localexec)": 4,
    "unnamed_addr": 5, "local_unnamed_addr": 5,
    "externally_initialized": 7,
}
"""The position of each word among the prefix words (addrspace(N) is 6)."""
_ADDRSPACE = re.compile(r"addrspace\(\d+\)\Z")
_LAST_RANK = {"variable": 7, "alias": 5, "function": 3}
_SUFFIX_WORDS = frozenset({"no_sanitize_address", "no_sanitize_hwaddress", "sanitize_memtag",
                           "sanitize_address_dyninit", "comdat"})
_SUFFIX_STRINGS = frozenset({"section", "partition", "code_model"})
_CODE_MODELS = frozenset({'"tiny"', '"small"', '"kernel"', '"medium"', '"large"'})


def prefix_problems(where: str, words: Iterable[str], kind: str) -> list[str]:
    """What LLVM rejects among the words before a `kind` (variable, alias, function)."""
    last, seen = -1, set()
    for word in words:
        rank = 6 if _ADDRSPACE.match(word) else _RANKS.get(word)
        if rank is None or rank > _LAST_RANK[kind]:
            return [f"{where}: unexpected '{word}' before the {kind}'s type"]
        if rank <= last:
            return [f"{where}: '{word}' out of place (LLVM's order: linkage, preemption, "
                    "visibility, DLL storage, thread_local, unnamed_addr, addrspace, "
                    "externally_initialized)"]
        last = rank
        seen.add(word)
    if seen & {"private", "internal"}:
        if seen & {"hidden", "protected"}:
            return [f"{where}: a symbol with local linkage must have default visibility"]
        if seen & {"dllimport", "dllexport"}:
            return [f"{where}: a symbol with local linkage cannot have a DLL storage class"]
    if {"dso_local", "dllimport"} <= seen:
        return [f"{where}: dso_local and dllimport contradict each other"]
    return []


def suffix_problems(where: str, suffix: Iterable[str]) -> list[str]:
    """What LLVM rejects among the `, ...` properties after a variable's initializer."""
    for item in suffix:
        word, _, value = item.partition(" ")
        if word.startswith(("align", "comdat(")):
            continue
        if word in _SUFFIX_STRINGS and value.startswith('"'):
            if word == "code_model" and value not in _CODE_MODELS:
                return [f"{where}: unknown code model {value}"]
            continue
        if word in _SUFFIX_WORDS and not value:
            continue
        return [f"{where}: unknown global variable property '{item}'"]
    return []
