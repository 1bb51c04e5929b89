"""The harness's own logic: comparison, summary arithmetic, CSV, progress,
Enzyme's build flags, and whole runs with stand-in compilers (a failing
enzcc, a working one, one whose derivative is wrong)."""

from __future__ import annotations

import io
import math
import stat
import subprocess
from array import array
from pathlib import Path

import pytest

from benchmarks.adbench import harness, report
from benchmarks.adbench.compare import worst_error
from benchmarks.adbench.progress import Progress
from benchmarks.adbench.runner import Timing
from benchmarks.adbench.suite import PROGRAMS
from benchmarks.adbench.tools import Tool, enzyme_plugin_flags, unity_source

# --- compare ---------------------------------------------------------------


def test_worst_error_is_relative_per_entry():
    w = worst_error([1.0, 200.0 * (1 + 1e-9)], [1.0, 200.0])
    assert w.index == 1
    assert w.error == pytest.approx(1e-9, rel=1e-6)


def test_worst_error_measures_tiny_entries_against_the_scale():
    # 1e-9 vs 2e-9 is 50% apart, but 1e-12 of the vector's scale (1000)
    w = worst_error([1000.0, 1e-9], [1000.0, 2e-9])
    assert w.error == pytest.approx(1e-9 / 1.0, rel=1e-6)  # floor: 1e-3 * 1000


def test_worst_error_nan_is_infinite_and_lengths_must_match():
    assert worst_error([1.0, math.nan], [1.0, 2.0]).error == math.inf
    with pytest.raises(ValueError):
        worst_error([1.0], [1.0, 2.0])


def test_disagreement_flags_objective_and_derivative():
    ref = Timing(1.0, 2.0, 5.0)
    dump = array("d", [1.0, -2.0, 3.0])
    assert harness._disagreement(Timing(1.5, 9.0, 5.0), array("d", dump), ref, dump) is None
    assert "objective" in harness._disagreement(Timing(1, 2, 5.001), dump, ref, dump)
    wrong = array("d", [1.0, -2.0, 3.0 * (1 + 1e-6)])
    assert "derivative differs" in harness._disagreement(ref, wrong, ref, dump)
    assert "values" in harness._disagreement(ref, dump[:2], ref, dump)


# --- report ----------------------------------------------------------------

ROWS = [
    report.Row("gmm", "a", "manual", 1.0, 2.0),
    report.Row("gmm", "b", "manual", 1.0, 8.0),
    report.Row("gmm", "a", "enzcc", 2.0, 8.0),
    report.Row("gmm", "b", "enzcc", 1.0, 16.0),
    report.Row("gmm", "a", "enzcc-ref", 2.0, 32.0),
    report.Row("gmm", "b", "enzcc-ref", 1.0, 16.0),
    report.Row("fft", "x", "manual", 1.0, 3.0),
]


def test_summary_geometric_means():
    s = report.summarize(ROWS, ["gmm", "fft"])
    assert s.benchmarks == ["gmm", "fft"]
    assert s.tools == ["manual", "enzcc", "enzcc-ref"]
    assert s.ratio["gmm", "manual"] == pytest.approx(4.0)  # sqrt(2 * 8)
    assert s.ratio["gmm", "enzcc"] == pytest.approx(8.0)  # sqrt(4 * 16)
    assert s.versus_manual["gmm", "enzcc"] == pytest.approx(2.0)  # sqrt(2 * 2)
    assert ("fft", "enzcc") not in s.ratio
    assert s.ref_speedup == pytest.approx(2.0)  # sqrt(32/8 * 16/16)
    assert s.ref_pairs == 2
    assert s.objective_vs_manual["gmm", "enzcc"] == pytest.approx(2 ** 0.5)  # sqrt(2/1 * 1/1)
    assert s.versus_enzyme == {} and s.enzyme_overall is None
    text = report.summary_table(s)
    assert "enzcc speedup over enzcc-ref" in text and "2.00x" in text
    assert "enzcc obj/manual obj" in text and "enzyme" not in text


def test_summary_compares_gradients_with_enzyme():
    rows = [*ROWS, report.Row("gmm", "a", "enzyme", 1.0, 2.0), report.Row("gmm", "b", "enzyme", 1.0, 32.0),
            report.Row("fft", "x", "enzcc", 1.0, 6.0), report.Row("fft", "x", "enzyme", 1.0, 3.0)]
    s = report.summarize(rows, ["gmm", "fft"])
    assert s.versus_enzyme["gmm"] == pytest.approx(2 ** 0.5)  # sqrt(8/2 * 16/32)
    assert s.versus_enzyme["fft"] == pytest.approx(2.0)
    assert s.enzyme_overall == pytest.approx((4 * 0.5 * 2) ** (1 / 3))
    text = report.summary_table(s)
    assert "enzcc grad/enzyme grad" in text and "every input both ran: 1.59" in text


def test_summary_without_both_pipelines_says_so():
    s = report.summarize([r for r in ROWS if r.tool != "enzcc-ref"])
    assert s.ref_speedup is None
    assert "needs results from both" in report.summary_table(s)


def test_csv_round_trip(tmp_path):
    path = tmp_path / "r.csv"
    report.write_csv(path, ROWS)
    assert path.read_text().splitlines()[0] == "benchmark,input,tool,objective_s,gradient_s"
    assert report.read_csv(path) == ROWS
    assert [p.name for p in tmp_path.iterdir()] == ["r.csv"]  # no temporary left


# --- progress, tools ---------------------------------------------------------


def test_progress_writes_one_line_per_step_when_not_a_terminal():
    out = io.StringIO()
    p = Progress(2, out)
    p.step("gmm 1k/d2_K5 manual")
    p.step("gmm 1k/d2_K5 enzcc")
    p.finish()
    lines = out.getvalue().splitlines()
    assert [line.split("  (")[0] for line in lines] == ["[1/2] gmm 1k/d2_K5 manual", "[2/2] gmm 1k/d2_K5 enzcc"]


def test_enzyme_plugin_flags_by_clang_version():
    assert enzyme_plugin_flags("/p/ClangEnzyme-11.so", 11) == ("-Xclang", "-load", "-Xclang", "/p/ClangEnzyme-11.so")
    new = enzyme_plugin_flags("/p/ClangEnzyme-17.so", 17)
    assert new[0] == "-fpass-plugin=/p/ClangEnzyme-17.so"
    assert new[1:] == ("-Xclang", "-load", "-Xclang", "/p/ClangEnzyme-17.so")


@pytest.mark.parametrize("program", sorted(PROGRAMS))
def test_enzyme_single_file_build_compiles(tmp_path, program):
    """Real Enzyme needs the objective in the caller's translation unit, so its
    tool compiles one file including every source: it must compile cleanly."""
    unity = unity_source(PROGRAMS[program], Tool("enzyme", "ad", ("clang",), unity=True), tmp_path)
    done = subprocess.run(["clang-22", "-O2", "-Wall", "-Werror", "-c", str(unity), "-o", str(tmp_path / "u.o")],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


# --- whole runs ----------------------------------------------------------------


def _script(path: Path, body: str) -> Path:
    path.write_text("#!/bin/sh\n" + body)
    path.chmod(path.stat().st_mode | stat.S_IEXEC)
    return path


# A stand-in enzcc: clang-22 with each *_ad.c replaced by a file from $SUBST
# (default: the hand-written derivative next to it).
STAND_IN = """for a do
  shift
  case "$a" in
    --enzc-ad-before-opt) ;;
    *_ad.c) if [ -n "$SUBST" ]; then set -- "$@" "$SUBST/$(basename "$a")";
            else set -- "$@" "${a%_ad.c}_manual.c"; fi ;;
    *) set -- "$@" "$a" ;;
  esac
done
exec clang-22 "$@"
"""


def _run(tmp_path: Path, enzcc: Path, *extra: str) -> int:
    return harness.main(["--only", "fft", "--quick", "--min-time", "0.005", "--results", str(tmp_path / "res"),
                         "--build-dir", str(tmp_path / "build"), "--name", "t", "--no-plot",
                         "--enzcc", str(enzcc), *extra])


def test_failing_enzcc_is_reported_unavailable(tmp_path, capsys):
    enzcc = _script(tmp_path / "enzcc", "echo 'enzcc: error: reverse mode is not implemented' >&2\nexit 1\n")
    assert _run(tmp_path, enzcc) == 0
    out = capsys.readouterr()
    assert "enzcc: unavailable for fft: enzcc: error: reverse mode is not implemented" in out.out
    assert {r.tool for r in report.read_csv(tmp_path / "res" / "t.csv")} == {"manual"}


def test_working_enzcc_is_timed_and_compared(tmp_path, capsys):
    enzcc = _script(tmp_path / "enzcc", STAND_IN)
    assert _run(tmp_path, enzcc) == 0
    rows = report.read_csv(tmp_path / "res" / "t.csv")
    assert sorted(r.tool for r in rows) == ["enzcc", "enzcc-ref", "manual"]
    assert all(r.objective_s > 0 and r.gradient_s > 0 for r in rows)
    md = (tmp_path / "res" / "t.md").read_text()
    assert "enzcc speedup over enzcc-ref" in md and "cores" in md
    assert "[3/3] fft n1024 enzcc-ref" in capsys.readouterr().err


def test_rounds_give_one_median_row_per_tool(tmp_path, capsys):
    enzcc = _script(tmp_path / "enzcc", STAND_IN)
    assert _run(tmp_path, enzcc, "--rounds", "3", "--tools", "manual,enzcc") == 0
    rows = report.read_csv(tmp_path / "res" / "t.csv")
    assert sorted(r.tool for r in rows) == ["enzcc", "manual"]
    steps = [line for line in capsys.readouterr().err.splitlines() if "fft n1024" in line]
    assert [line.split("] ")[1].split("  (")[0] for line in steps] == ["fft n1024 manual", "fft n1024 enzcc"] * 3


def test_median_row():
    rows = [report.Row("b", "i", "t", o, g) for o, g in ((3.0, 1.0), (1.0, 9.0), (2.0, 5.0))]
    assert harness.median_row(rows) == report.Row("b", "i", "t", 2.0, 5.0)


def test_wrong_derivative_is_not_reported(tmp_path, capsys):
    wrong = tmp_path / "wrong"
    wrong.mkdir()
    (wrong / "fft_ad.c").write_text(
        "void fft_gradient(const double *x, int n, double *d_x)\n"
        "{ (void)x; for (int i = 0; i < 2 * n; i++) d_x[i] = 0; }\n")
    enzcc = _script(tmp_path / "enzcc", f"SUBST={wrong}\n" + STAND_IN)
    assert _run(tmp_path, enzcc) == 1
    assert "derivative differs from manual's" in capsys.readouterr().out
    assert {r.tool for r in report.read_csv(tmp_path / "res" / "t.csv")} == {"manual"}


def test_missing_data_is_a_clear_error(tmp_path, capsys):
    assert harness.main(["--only", "gmm", "--data", str(tmp_path / "nowhere")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ADBench data not found at") and "ENZC_ADBENCH_DATA" in err


def test_unknown_benchmark_is_a_clear_error(capsys):
    assert harness.main(["--only", "gmm,hand"]) == 2
    assert "unknown benchmark(s) hand" in capsys.readouterr().err
