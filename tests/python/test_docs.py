"""docs/python.md runs as written: its ```python blocks, in order, in one namespace.
Blocks using torch or jax are skipped (not failed) when that extra is missing."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

DOC = Path(__file__).resolve().parents[2] / "docs" / "python.md"


def blocks() -> list[str]:
    return re.findall(r"```python\n(.*?)```", DOC.read_text(), flags=re.S)


def test_quick_start_and_every_example_run(enzc_cache, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    namespace: dict[str, object] = {}
    ran = 0
    for code in blocks():
        missing = [m for m in ("torch", "jax") if re.search(rf"^import {m}\b", code, re.M)
                   and importlib.util.find_spec(m) is None]
        if missing:
            continue
        exec(compile(code, str(DOC), "exec"), namespace)
        ran += 1
    assert ran >= 4
    assert "11.04" in capsys.readouterr().out
