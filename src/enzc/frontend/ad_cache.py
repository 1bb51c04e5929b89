"""A ccache for the AD stage: `ENZC_CACHE=DIR` or `--enzc-cache DIR`.

The AD stage is a pure function of the merged, optimized module text, the AD
options and enzc's own code, so its result is stored under a digest of those and
an unchanged module is not differentiated again. An entry is one file: a header
with the payload's SHA-256, then the zlib-compressed result; written atomically,
and a damaged entry is removed and recomputed. Runs that print AD internals
(--enzc-print-*) bypass the cache: a hit would print nothing.
"""

from __future__ import annotations

import hashlib
import os
import zlib
from collections.abc import Callable
from pathlib import Path

from enzc.ad import ADOptions
from enzc.diskcache import CACHE_ENV, digest, enzc_fingerprint, remove_entry, write_file_atomic

_MAGIC = b"enzc-ad-cache 1 "


def differentiate(stage: Callable[[str, ADOptions], str], text: str, options: ADOptions,
                  cache_dir: str | None) -> str:
    """`stage(text, options)` (the AD stage, `enzc.ad.run_ad_stage`), through the cache
    when one is configured."""
    directory = cache_dir or os.environ.get(CACHE_ENV)
    if not directory or options.print_activity or options.print_gradient or options.print_cache:
        return stage(text, options)
    key = digest("enzcc-ad", enzc_fingerprint(), repr(options), text)
    path = Path(directory) / "ad" / key[:2] / f"{key}.ll.z"
    cached = _read(path)
    if cached is not None:
        return cached
    result = stage(text, options)
    payload = zlib.compress(result.encode(), 1)
    try:
        write_file_atomic(path, _MAGIC + hashlib.sha256(payload).hexdigest().encode() + b"\n"
                          + payload)
    except OSError:
        pass  # an unwritable cache only costs speed
    return result


def _read(path: Path) -> str | None:
    try:
        data = path.read_bytes()
    except OSError:
        return None
    header, _, payload = data.partition(b"\n")
    try:
        if header[:len(_MAGIC)] == _MAGIC and \
                header[len(_MAGIC):].decode() == hashlib.sha256(payload).hexdigest():
            return zlib.decompress(payload).decode()
    except (UnicodeDecodeError, zlib.error):
        pass
    remove_entry(path)
    return None
