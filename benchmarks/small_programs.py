"""What the one-program benchmarks (`ad_loops`, `norm_mag`, `vector_reverse`) share:
a build directory kept only when asked for, an `enzcc -O2` build of a C text, and a
run that prints its times on one line."""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
ENZCC = REPO / ".venv" / "bin" / "enzcc"


@contextmanager
def build_dir(keep: Path | None, prefix: str) -> Iterator[Path]:
    """`keep` (created if needed and left in place), else a temporary directory."""
    workdir = keep or Path(tempfile.mkdtemp(prefix=prefix))
    workdir.mkdir(parents=True, exist_ok=True)
    try:
        yield workdir
    finally:
        if keep is None:
            shutil.rmtree(workdir, ignore_errors=True)


def build_c(text: str, name: str, workdir: Path) -> Path:
    """`text` compiled and linked by enzcc -O2 into `workdir/name`."""
    src = workdir / f"{name}.c"
    src.write_text(text)
    exe = workdir / name
    subprocess.run([str(ENZCC), "-O2", str(src), "-lm", "-o", str(exe)], check=True)
    return exe


def timings(exe: Path, n: int) -> list[float]:
    """The numbers the program prints for size `n` (its times, in seconds)."""
    done = subprocess.run([str(exe), str(n)], check=True, capture_output=True, text=True)
    return [float(word) for word in done.stdout.split()]
