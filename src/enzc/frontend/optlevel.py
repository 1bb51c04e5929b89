"""Make the frontend preprocess as the user's -O level would, while it optimizes at O2*.

clang predefines `__OPTIMIZE__`, `__OPTIMIZE_SIZE__` and `__NO_INLINE__` from the -O
level, and headers react (glibc's <stdio.h> pulls in inline versions at -O1+). The
frontend runs at the user's level when it optimizes, else at -O2 (or -O0 for
--enzc-ad-before-opt); these -D/-U flags put
the macros back to what the user's level defines, so the code, the warnings and the
-MD dependency lists are those of a plain `clang <user flags>`.
"""

from __future__ import annotations

_MACROS = ("__OPTIMIZE__", "__OPTIMIZE_SIZE__", "__NO_INLINE__")
_KEPT_LEVELS = ("-O1", "-O2", "-O3", "-Os", "-Oz")


def frontend_level(user_opt: str | None) -> str:
    """The -O level of the frontend's IR: the user's when it optimizes (so functions
    carry the attributes it implies, `optsize` and `minsize` for -Os/-Oz), else -O2:
    AD works on optimized IR even when the final code is built at -O0."""
    return user_opt if user_opt in _KEPT_LEVELS else "-O2"


def _macros(opt: str | None) -> dict[str, bool]:
    """Which of the level-dependent macros clang defines at `opt` (e.g. '-O2')."""
    level = (opt or "-O0")[2:] or "1"
    optimize = level != "0"
    return {"__OPTIMIZE__": optimize, "__OPTIMIZE_SIZE__": level in ("s", "z"),
            "__NO_INLINE__": not optimize}


def level_macro_flags(user_opt: str | None, frontend_opt: str) -> list[str]:
    """-D/-U flags that turn `frontend_opt`'s predefined macros into `user_opt`'s."""
    want, have = _macros(user_opt), _macros(frontend_opt)
    flags = []
    for name in _MACROS:
        if want[name] and not have[name]:
            flags.append(f"-D{name}")
        elif have[name] and not want[name]:
            flags.append(f"-U{name}")
    if user_opt == "-Ofast":  # -Ofast's meaning beyond -O3 is -ffast-math
        flags.append("-ffast-math")
    return flags
