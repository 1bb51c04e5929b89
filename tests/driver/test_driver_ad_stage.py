"""The driver's side of the AD stage contract, with a stand-in AD stage: when it is
called, with what, and what happens to its result in -c, -S -emit-llvm and link mode.

The stand-in replaces `__enzyme_autodiff` calls by calls to a function it adds, so
the result is checked by running the program; gradients themselves are tested by
the AD suite."""

from __future__ import annotations

import os
import pickle
import re
import subprocess
import tempfile
from collections.abc import Sequence
from pathlib import Path

import pytest

from enzc.ad import ADError, ADOptions
from enzc.frontend import cli
from enzc.lto.elfobj import read_elf_object
from enzc.lto.irmodule import parse_module

PROGRAM = """#include <stdio.h>
#include <enzyme/enzyme.h>
double square(double x) { return x * x; }
int main(void) { printf("%g\\n", __enzyme_autodiff((void *)square, 3.0)); return 0; }
"""
PLAIN = "int main(void) { return 0; }\n"
STAND_IN = "define internal double @stand_in(ptr %f, ...) {\n  ret double 42.0\n}\n"


class _Calls(Sequence[tuple[str, ADOptions]]):
    """The stand-in's calls, recorded as files: in link mode the AD stage runs in a
    forked child (enzc.isolation), whose memory the test does not see."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        directory.mkdir()

    def record(self, text: str, options: ADOptions) -> None:
        (self.directory / f"{len(self):04d}").write_bytes(pickle.dumps((text, options)))

    def _all(self) -> list[tuple[str, ADOptions]]:
        return [pickle.loads(p.read_bytes()) for p in sorted(self.directory.iterdir())]

    def __len__(self) -> int:
        return len(list(self.directory.iterdir()))

    def __getitem__(self, k):  # type: ignore[no-untyped-def,override]
        return self._all()[k]


@pytest.fixture
def calls(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> _Calls:
    """Install the stand-in AD stage; return the list of its calls."""
    seen = _Calls(tmp_path / "calls")

    def stand_in(text: str, options: ADOptions) -> str:
        seen.record(text, options)
        return _replace_calls(text)

    temp = tmp_path / "TMPDIR"
    temp.mkdir()
    monkeypatch.setattr("enzc.frontend.middle.run_ad_stage", stand_in)
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    monkeypatch.chdir(tmp_path)
    (tmp_path / "prog.c").write_text(PROGRAM)
    (tmp_path / "plain.c").write_text(PLAIN)
    return seen


def _replace_calls(text: str) -> str:
    return re.sub(r"(call .*)@__enzyme_autodiff\(", r"\1@stand_in(", text) + STAND_IN


def _run_program(path: Path) -> str:
    return subprocess.run([str(path)], capture_output=True, text=True, check=True).stdout


def test_link_mode_differentiates_the_merged_module(tmp_path: Path,
                                                    calls: _Calls) -> None:
    argv = ["-O2", "prog.c", "-o", "prog", "--enzc-print-activity", "--enzc-keep-temps", "k"]
    assert cli.run(argv, cxx=False) == 0
    assert _run_program(tmp_path / "prog") == "42\n"
    (text, options), = calls
    assert options == ADOptions(print_activity=True)
    assert re.search(r"call .*@__enzyme_autodiff\(ptr .*@square", text)  # after O2*
    assert "@stand_in(" in (tmp_path / "k" / "merged.post-ad.ll").read_text()
    assert os.listdir(tempfile.gettempdir()) == []


def test_c_mode_compiles_the_result_and_embeds_the_input(tmp_path: Path,
                                                         calls: _Calls) -> None:
    assert cli.run(["-O2", "-c", "prog.c", "plain.c"], cxx=False) == 0
    assert len(calls) == 1  # plain.c names no __enzyme_ function: no AD stage, no parse
    obj = read_elf_object((tmp_path / "prog.o").read_bytes(), "prog.o")
    assert "stand_in" not in obj.symbols.defined  # internal, but the call was replaced:
    assert "__enzyme_autodiff" not in obj.symbols.undefined
    assert obj.bitcode is not None  # the embedded module is the one before AD
    assert "__enzyme_autodiff" in str(parse_module(obj.bitcode, "prog.o"))
    # A later link redoes AD on the merged module, from the embedded IR.
    assert cli.run(["prog.o", "-o", "prog"], cxx=False) == 0
    assert len(calls) == 2 and _run_program(tmp_path / "prog") == "42\n"


def test_s_emit_llvm_writes_the_post_ad_module(tmp_path: Path,
                                               calls: _Calls) -> None:
    assert cli.run(["-O1", "-S", "-emit-llvm", "prog.c", "-o", "prog.ll"], cxx=False) == 0
    assert (tmp_path / "prog.ll").read_text() == _replace_calls(calls[0][0])


REFUSAL = "prog.c:3:50: error: cannot differentiate 'square' (hint: ...)"


def test_ad_errors_are_printed_as_given_and_leave_nothing(
        tmp_path: Path, calls: _Calls, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    def refuse(text: str, options: ADOptions) -> str:
        raise ADError(REFUSAL)

    monkeypatch.setattr("enzc.frontend.middle.run_ad_stage", refuse)
    for argv in (["prog.c", "-o", "prog"], ["-S", "prog.c", "plain.c"]):
        assert cli.run(argv, cxx=False) == 1
        assert capsys.readouterr().err == REFUSAL + "\n"
    assert not any((tmp_path / name).exists() for name in ("prog", "prog.s", "plain.s"))
    assert os.listdir(tempfile.gettempdir()) == []


def test_c_defers_ad_it_cannot_do_alone_to_the_link(
        tmp_path: Path, calls: _Calls, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    # Typically the differentiated function is in another translation unit: only the
    # link sees it. The object keeps the unresolved call and the IR for the link.
    monkeypatch.setattr("enzc.frontend.middle.run_ad_stage",
                        lambda text, options: (_ for _ in ()).throw(ADError(REFUSAL)))
    assert cli.run(["-c", "prog.c"], cxx=False) == 0
    err = capsys.readouterr().err
    assert err.startswith("enzcc: note: prog.c: AD deferred to the enzcc link step")
    assert REFUSAL in err
    obj = read_elf_object((tmp_path / "prog.o").read_bytes(), "prog.o")
    assert "__enzyme_autodiff" in obj.symbols.undefined and obj.bitcode is not None
    assert cli.run(["prog.o", "-o", "prog"], cxx=False) == 1  # the link reports it
    assert capsys.readouterr().err == REFUSAL + "\n" and not (tmp_path / "prog").exists()
    monkeypatch.setattr("enzc.frontend.middle.run_ad_stage",
                        lambda text, options: _replace_calls(text))
    assert cli.run(["prog.o", "-o", "prog"], cxx=False) == 0  # and does it when it can
    assert _run_program(tmp_path / "prog") == "42\n"


def test_invalid_ir_from_the_ad_stage_is_reported_as_an_enzc_bug(
        calls: _Calls, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr("enzc.frontend.middle.run_ad_stage", lambda text, options: text + "junk")
    assert cli.run(["prog.c", "-o", "prog"], cxx=False) == 1
    err = capsys.readouterr().err
    assert "invalid LLVM IR" in err and "bug in enzc" in err and "Traceback" not in err
