"""The `enzcc`/`enzc++` compiler driver: cc-compatible command line, clang-22 steps,
the in-process pass pipelines and the end-to-end compile (docs/driver.md).

Public API: `main_cc`/`main_cxx` (the console scripts) and `run(argv, cxx)`, which
returns the exit status instead of exiting.
"""

from enzc.frontend.cli import main_cc, main_cxx, run

__all__ = ["main_cc", "main_cxx", "run"]
