"""Helpers for the driver tests: where enzcc is, sample projects, running commands."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest

BIN = Path(sys.executable).parent
ENZCC = str(BIN / "enzcc")
ENZCXX = str(BIN / "enzc++")
PROJECTS = Path(__file__).parent / "projects"


def run(argv: Sequence[str], cwd: Path, env: dict[str, str], input: bytes | None = None,
        check: bool = True) -> subprocess.CompletedProcess[str]:
    """Run a command; with `check`, fail the test showing its output if it fails."""
    result = subprocess.run(list(argv), cwd=cwd, env=env, input=input, capture_output=True,
                            timeout=300)
    out = subprocess.CompletedProcess(result.args, result.returncode,
                                      result.stdout.decode(errors="replace"),
                                      result.stderr.decode(errors="replace"))
    if check and out.returncode != 0:
        pytest.fail(f"{' '.join(map(str, argv))} exited {out.returncode}\n"
                    f"stdout:\n{out.stdout}\nstderr:\n{out.stderr}")
    return out


@pytest.fixture
def tmpdir_env(tmp_path: Path) -> dict[str, str]:
    """Environment with enzcc on PATH and TMPDIR pointing at an (empty) test directory."""
    temp = tmp_path / "TMPDIR"
    temp.mkdir()
    env = dict(os.environ)
    env["PATH"] = f"{BIN}{os.pathsep}{env.get('PATH', '')}"
    env["TMPDIR"] = str(temp)
    env.pop("MAKEFLAGS", None)
    return env


def temp_leftovers(env: dict[str, str]) -> list[str]:
    """What is left in the test's TMPDIR (should be nothing after enzcc exits)."""
    return sorted(os.listdir(env["TMPDIR"]))


def copy_project(name: str, destination: Path) -> Path:
    """A fresh copy of tests/driver/projects/<name>."""
    target = destination / name
    shutil.copytree(PROJECTS / name, target)
    return target
