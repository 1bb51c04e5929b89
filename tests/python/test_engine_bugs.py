"""Engine bugs found through the Python API, kept as strict xfails so they flip to
failures (and get their workaround in enzc/python/build.py removed) once fixed."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from conftest import PROGRAMS


@pytest.mark.xfail(strict=True, reason="forward mode with -g leaves #dbg_value(%<badref>): "
                   "invalid IR after AD")
def test_forward_mode_with_variable_debug_info(tmp_path: Path) -> None:
    enzcc = str(Path(sys.executable).parent / "enzcc")
    built = subprocess.run([enzcc, "-O2", "-g", str(PROGRAMS / "bugs" / "fwd_dbg_badref.c"),
                            "-lm", "-o", str(tmp_path / "prog")], capture_output=True, text=True)
    assert built.returncode == 0, built.stderr
    run = subprocess.run([str(tmp_path / "prog")], capture_output=True, text=True, check=True)
    assert float(run.stdout) == pytest.approx(-1.75)  # -(1 + 4 + 9) / 2^3
