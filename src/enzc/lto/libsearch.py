"""Find the file `-lNAME` names, with ld's search rules.

Every -L directory applies to every -l, whatever the order, then the toolchain's
default directories. In each directory a shared `libNAME.so` is preferred over
`libNAME.a`, unless linking statically (`-static`, `-Wl,-Bstatic`). `-l:FILE` looks
for FILE exactly.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence


def find_library(spec: str, dirs: Sequence[str], default_dirs: Callable[[], Sequence[str]],
                 static: bool) -> str | None:
    """Path of the library `-l{spec}` resolves to, or None if ld would not find it."""
    if spec.startswith(":"):
        names = [spec[1:]]
    elif static:
        names = [f"lib{spec}.a"]
    else:
        names = [f"lib{spec}.so", f"lib{spec}.a"]
    found = _search(names, dirs)
    return found if found is not None else _search(names, default_dirs())


def _search(names: Sequence[str], dirs: Sequence[str]) -> str | None:
    for directory in dirs:
        for name in names:
            path = os.path.join(directory, name)
            if os.path.isfile(path):
                return path
    return None
