"""The on-disk cache shared by `enzc.load` (built libraries) and `enzcc` (AD results).

Where: `$ENZC_CACHE` if set, else `$XDG_CACHE_HOME/enzc`, else `~/.cache/enzc`.
Every write is atomic: an entry is built under a private temporary name in the
cache directory and renamed into place, so a reader sees a whole entry or none,
and two processes filling the same entry at once both succeed (one rename wins,
the other's copy is discarded). Entries carry checksums; a reader that finds a
corrupt one removes it and rebuilds instead of trusting it.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
import uuid
from pathlib import Path

CACHE_ENV = "ENZC_CACHE"


def cache_root() -> Path:
    """The cache directory, absolute (not created here)."""
    explicit = os.environ.get(CACHE_ENV)
    if explicit:
        return Path(os.path.abspath(os.path.expanduser(explicit)))
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg) if xdg and os.path.isabs(xdg) else Path.home() / ".cache"
    return base / "enzc"


def digest(*parts: bytes | str) -> str:
    """A hex SHA-256 of the parts, each length-prefixed so boundaries count."""
    h = hashlib.sha256()
    for part in parts:
        data = part.encode() if isinstance(part, str) else part
        h.update(len(data).to_bytes(8, "little"))
        h.update(data)
    return h.hexdigest()


def file_digest(path: str | Path) -> str:
    """SHA-256 of a file's contents."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def enzc_fingerprint() -> str:
    """Identifies enzc's own code: its version and the size and mtime of each of its
    Python files (stat only), so an edited checkout invalidates what it built."""
    import enzc

    package = Path(enzc.__file__).parent
    stats = [enzc.__version__]
    for path in sorted(package.rglob("*.py")):
        st = path.stat()
        stats.append(f"{path.relative_to(package)}:{st.st_size}:{st.st_mtime_ns}")
    return digest(*stats)


def staging_dir(root: Path) -> Path:
    """A fresh private directory inside `root` to build an entry in (same filesystem,
    so the final rename is atomic)."""
    (root / "tmp").mkdir(parents=True, exist_ok=True)
    return Path(tempfile.mkdtemp(prefix="build-", dir=root / "tmp"))


def publish_dir(staged: Path, final: Path) -> bool:
    """Move the directory `staged` to `final` atomically; False (and `staged` removed)
    if another process published `final` first."""
    final.parent.mkdir(parents=True, exist_ok=True)
    try:
        os.rename(staged, final)
        return True
    except OSError:
        if not final.exists():
            raise
        shutil.rmtree(staged, ignore_errors=True)
        return False


def remove_entry(path: Path) -> None:
    """Remove a (corrupt) entry: renamed aside first, so no reader sees half of it."""
    aside = path.parent / f".removing-{uuid.uuid4().hex}"
    try:
        os.rename(path, aside)
    except OSError:
        return  # already gone (another process removed it)
    if aside.is_dir():
        shutil.rmtree(aside, ignore_errors=True)
    else:
        aside.unlink(missing_ok=True)


def write_file_atomic(path: Path, data: bytes) -> None:
    """Write `data` to `path` through a temporary file and a rename."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
