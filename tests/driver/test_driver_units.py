"""Unit tests of the driver's pieces: argument parsing, response files, dependency
file naming, archive reading and ld-style member selection."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from enzc.frontend.args import InputKind, Phase, UsageError, parse_args
from enzc.frontend.deps import dependency_file
from enzc.frontend.responsefile import expand_response_files, split_words
from enzc.lto.archive import ArchiveError, parse_archive, read_archive
from enzc.lto.collect import Library, LinkerFlags
from enzc.lto.elfobj import Symbols
from enzc.lto.resolve import ArchiveView, SymbolState


def test_parse_phase_output_and_flags_order() -> None:
    inv = parse_args(["-O3", "-c", "-Iinc", "a.c", "-o", "a.o", "-DX=1", "-std=c11",
                      "-fPIC", "-MMD", "-MF", "a.d", "-MP", "-lm", "-g"], cxx=False)
    assert inv.phase == Phase.OBJECT
    assert inv.output == "a.o" and inv.opt == "-O3"
    assert inv.flags == ["-Iinc", "-DX=1", "-std=c11", "-fPIC", "-g"]
    assert inv.deps.mode == "-MMD" and inv.deps.file == "a.d" and inv.deps.extra == ("-MP",)
    assert [i.path for i in inv.inputs] == ["a.c"]
    assert Library("m") in inv.items
    assert not inv.delegate


def test_parse_link_line_keeps_order_of_inputs_libraries_and_linker_flags() -> None:
    inv = parse_args(["main.o", "-Wl,--whole-archive,libx.a", "-lfoo", "-L", "dir",
                      "-Xlinker", "-Bstatic", "x.c", "-u", "sym", "-static"], cxx=False)
    kinds = [type(item).__name__ for item in inv.items]
    assert kinds == ["Input", "LinkerFlags", "Library", "LinkerFlags", "Input"]
    assert inv.items[1] == LinkerFlags(("--whole-archive", "libx.a"),
                                       ("-Wl,--whole-archive,libx.a",))
    assert inv.lib_dirs == ["dir"] and inv.required_symbols == ["sym"] and inv.static


def test_parse_x_language_applies_to_following_inputs_until_none() -> None:
    inv = parse_args(["-x", "c", "a.txt", "-xc++", "b.txt", "-x", "none", "c.cc", "d.o"],
                     cxx=False)
    assert [i.kind for i in inv.inputs] == [InputKind.C, InputKind.CXX, InputKind.CXX,
                                            InputKind.LINKER]
    assert inv.inputs[1].lang == "c++" and inv.inputs[2].lang is None


def test_parse_earliest_phase_wins_and_queries_delegate() -> None:
    assert parse_args(["-c", "-S", "a.c"], cxx=False).phase == Phase.ASSEMBLY
    for argv in (["-E", "a.c"], ["-M", "a.c"], ["-MM", "a.c"], ["-fsyntax-only", "a.c"],
                 ["--version"], ["-dumpversion"], ["-print-search-dirs"], ["-v"]):
        assert parse_args(argv, cxx=False).delegate, argv
    assert not parse_args(["-MD", "-c", "a.c"], cxx=False).delegate
    assert parse_args(["-c", "start.S", "x.h"], cxx=False).delegate
    assert not parse_args(["-c", "start.S", "x.c"], cxx=False).delegate
    assert not parse_args(["start.S", "x.o"], cxx=False).delegate  # link: objects may hold IR


def test_parse_enzc_options() -> None:
    inv = parse_args(["--enzc-time", "--enzc-keep-temps", "k", "--enzc-print-activity",
                      "--enzc-ad-before-opt", "a.c"], cxx=True)
    assert inv.enzc.time and inv.enzc.keep_temps == "k" and inv.enzc.ad_before_opt
    assert inv.enzc.ad.print_activity and not inv.enzc.ad.print_gradient
    assert "--enzc-time" not in inv.args and inv.cxx
    assert parse_args(["--enzc-keep-temps=d", "a.c"], cxx=False).enzc.keep_temps == "d"
    with pytest.raises(UsageError, match="unknown enzc option '--enzc-bogus'"):
        parse_args(["--enzc-bogus", "a.c"], cxx=False)
    assert not inv.enzc.ad.runtime_activity
    for spelling in ("--enzc-runtime-activity", "-enzc-runtime-activity"):
        runtime = parse_args([spelling, "a.c"], cxx=False)
        assert runtime.enzc.ad.runtime_activity and spelling not in runtime.args


def test_missing_option_value_is_a_usage_error() -> None:
    with pytest.raises(UsageError, match="argument to '-o' is missing"):
        parse_args(["a.c", "-o"], cxx=False)


def test_response_files_nest_and_quote(tmp_path: Path) -> None:
    inner = tmp_path / "inner.rsp"
    inner.write_text("-DB='two words' \\\"q\n")
    outer = tmp_path / "outer.rsp"
    outer.write_text(f'-c "a b.c" @{inner}\n')
    assert expand_response_files([f"@{outer}", "@missing-file", "x.c"]) == [
        "-c", "a b.c", "-DB=two words", '"q', "@missing-file", "x.c"]
    assert split_words("  a\t'b c'd \"e\\\"f\" ") == ["a", "b cd", 'e"f']


@pytest.mark.parametrize(("mf", "output", "source", "file", "target"), [
    (None, "out/x.o", "src/x.c", "out/x.d", "out/x.o"),
    (None, None, "src/x.c", "x.d", "x.o"),
    ("deps/x.dep", "x.o", "x.c", "deps/x.dep", "x.o"),
    (None, "prog", "a.c", "prog.d", "prog"),
])
def test_dependency_file_names_follow_clang(mf: str | None, output: str | None, source: str,
                                            file: str, target: str) -> None:
    argv = ["-MD", "-c", source] + (["-MF", mf] if mf else []) + (["-o", output] if output else [])
    plan = dependency_file(parse_args(argv, cxx=False).deps, source, output, "/tmp/t.d")
    assert plan is not None and plan.destination == file
    assert plan.flags[:3] == ["-MD", "-MF", "/tmp/t.d"] and plan.flags[-2:] == ["-MQ", target]


def _gnu_ar(tmp_path: Path, names: dict[str, bytes], thin: bool = False) -> Path:
    for name, data in names.items():
        (tmp_path / name).write_bytes(data)
    archive = tmp_path / ("thin.a" if thin else "lib.a")
    subprocess.run(["ar", "rcT" if thin else "rc", str(archive), *names], cwd=tmp_path,
                   check=True, capture_output=True)
    return archive


def test_archive_members_long_names_and_thin(tmp_path: Path) -> None:
    members = {"short.txt": b"abc", "a_rather_long_member_name.txt": b"odd sized!\n"}
    for thin in (False, True):
        archive = read_archive(str(_gnu_ar(tmp_path, members, thin)))
        assert [(m.name, m.data) for m in archive.members] == list(members.items())
        assert archive.index is None  # no objects, so ar wrote no symbol index


def test_archive_corruption_is_reported(tmp_path: Path) -> None:
    data = _gnu_ar(tmp_path, {"one.txt": b"1" * 100}).read_bytes()
    with pytest.raises(ArchiveError, match="not an archive"):
        parse_archive("x.a", b"garbage")
    with pytest.raises(ArchiveError, match="runs past the end"):
        parse_archive("x.a", data[:-50])
    with pytest.raises(ArchiveError, match="corrupt member header"):
        parse_archive("x.a", data[:8] + b"x" * 70)


def test_thin_archive_member_name_with_nul_is_reported(tmp_path: Path) -> None:
    """ar:3205535: a NUL byte in a thin archive's member name reached open(), whose
    ValueError ended enzcc with an internal error."""
    data = _gnu_ar(tmp_path, {"one.txt": b"1"}, thin=True).read_bytes()
    assert b"one.txt/" in data
    with pytest.raises(ArchiveError, match="contains a NUL byte"):
        parse_archive(str(tmp_path / "thin.a"), data.replace(b"one.txt/", b"on\0.txt/"))


def test_archive_symbol_index_maps_symbols_to_members(tmp_path: Path) -> None:
    for name, text in (("f.c", "int f(void){return 1;}"), ("g.c", "int g(void){return 2;}")):
        (tmp_path / name).write_text(text)
        subprocess.run(["clang-22", "-c", name], cwd=tmp_path, check=True)
    subprocess.run(["ar", "rc", "lib.a", "f.o", "g.o"], cwd=tmp_path, check=True)
    archive = read_archive(str(tmp_path / "lib.a"))
    assert archive.index is not None
    assert {s: archive.member_at(o).name for s, o in archive.index.items()} == {"f": "f.o",
                                                                                "g": "g.o"}


def _view(members: dict[str, tuple[set[str], set[str]]]) -> ArchiveView:
    """An archive view over synthetic members: name -> (defined, undefined)."""
    from enzc.lto.archive import Archive, Member

    entries = tuple(Member(name, offset, b"") for offset, name in enumerate(members))
    symbols = {m.offset: Symbols(frozenset(members[m.name][0]), frozenset(members[m.name][1]))
               for m in entries}
    index = {s: m for m in entries for s in sorted(members[m.name][0])}
    return ArchiveView(Archive("lib.a", entries, None), index, lambda m: symbols[m.offset])


def test_member_selection_is_iterative_and_skips_unneeded_members() -> None:
    view = _view({"a.o": ({"a"}, {"b"}), "b.o": ({"b"}, {"c"}), "c.o": ({"c"}, set()),
                  "unused.o": ({"unused"}, {"nowhere"})})
    state = SymbolState()
    state.load(Symbols(frozenset({"main"}), frozenset({"a"})))
    pulled = view.scan(state)
    assert [m.name for m in pulled] == ["a.o", "b.o", "c.o"]
    assert state.undefined == set()


def test_member_defining_two_wanted_symbols_keeps_the_other_member_out() -> None:
    view = _view({"both.o": ({"x", "y"}, set()), "y.o": ({"y"}, set())})
    view.index = {"x": view.archive.members[0], "y": view.archive.members[1]}
    state = SymbolState()
    state.load(Symbols(frozenset(), frozenset({"x", "y"})))
    assert [m.name for m in view.scan(state)] == ["both.o"]
