"""Where caches live, checked on enzcc's real output (`cache.py`, `tape_stats.py`).

Gradients stay correct however caches are allocated (the programs under
programs/rev2/tape check that); these tests guard the cost: how many allocator
calls a derivative makes, that `--enzc-print-cache` describes what is emitted,
and that `--enzc-tape-stats` counts the bytes the size formulas give.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

PROGRAMS = Path(__file__).parent / "programs" / "rev2" / "tape"
ADBENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "adbench" / "c"
ENZCC = Path(sys.executable).with_name("enzcc")


def build(sources: list[Path], tmp_path: Path, *flags: str) -> tuple[str, str, Path]:
    """(post-AD module text, stderr of enzcc, executable) of an -O2 build."""
    exe = tmp_path / "prog"
    temps = tmp_path / "temps"
    done = subprocess.run([str(ENZCC), "-O2", *map(str, sources), "-lm", f"--enzc-keep-temps={temps}", *flags,
                           "-o", str(exe)], check=True, capture_output=True, text=True)
    return (temps / "merged.post-ad.ll").read_text(), done.stderr, exe


def body(module_text: str, name: str) -> str:
    match = re.search(rf"^define [^\n]*@{re.escape(name)}\(.*?^}}", module_text, re.M | re.S)
    assert match, f"no @{name} in the post-AD module"
    return match.group(0)


def calls(text: str, callee: str) -> int:
    return len(re.findall(rf"call [^\n]*@{re.escape(callee)}\(", text))


def cache_blocks(text: str) -> int:
    """Tape-stack allocations of caches (named `<value>.cache...`), not the program's own."""
    return len(re.findall(r"%\"?[\w.]*\.cache[\w.]*\"? = call [^\n]*@__enzc_tape_alloc\(", text))


def test_constant_size_caches_live_on_the_stack(tmp_path: Path) -> None:
    """The 2-iteration flag loop gets an exact count: its caches share one entry
    alloca, and the derivative calls no allocator. (The 3-iteration loop's loads of
    `cam` are reloaded: the entry call passes `err` and `cam` in distinct objects.)"""
    module, report, _ = build([PROGRAMS / "flag_loop.c"], tmp_path, "--enzc-print-cache")
    d = body(module, "diffe_proj")
    assert calls(d, "malloc") == calls(d, "realloc") == calls(d, "free") == 0
    assert calls(d, "__enzc_tape_alloc") == calls(d, "__enzc_tape_free") == 0
    assert re.search(r"where n\(%\w+\) = 2 \(exit test evaluated at compile time, exact\)", report)
    assert "per call: 1 stack block(s) (48 bytes)" in report
    sizes = sorted(int(n) for n in re.findall(r"alloca \[(\d+) x i8\], align 16", d))
    assert sizes == [48]


def test_per_iteration_chunks_come_from_the_arena(tmp_path: Path) -> None:
    """A triangular loop: one tape-stack block for the once-per-call arrays, and the
    inner chunks from one arena allocation site (no malloc per outer iteration)."""
    module, report, _ = build([PROGRAMS / "triangular.c"], tmp_path, "--enzc-print-cache")
    d = body(module, "diffe_tri")
    assert calls(d, "malloc") == calls(d, "free") == 0
    assert cache_blocks(d) == 1 and calls(d, "__enzc_tape_free") == 1
    assert calls(d, "__enzc_arena_alloc") == 1 and calls(d, "__enzc_arena_free") == 1
    assert "allocated per iteration of loop" in report and "of the loop nest's arena" in report


def test_caches_of_one_preheader_share_one_block(tmp_path: Path) -> None:
    """ADBench LSTM: 16 caches under the time loop were 16 growing arrays (32
    mallocs and reallocs per call); the loop's count is now known and they share
    one block of the tape stack."""
    sources = [ADBENCH / f for f in ("lstm_ad.c", "lstm.c", "lstm_main.c", "adbench.c")]
    module, report, _ = build(sources, tmp_path, "--enzc-print-cache")
    d = body(module, "diffe_lstm_objective")
    assert cache_blocks(d) == 1 and calls(d, "__enzc_cache_grow") == calls(d, "realloc") == 0
    assert "; diffe_lstm_objective: 16 cached values; per call: 1 tape-stack block(s)\n" in report


def test_tape_stats_count_the_formula_bytes(tmp_path: Path) -> None:
    """many_calls: call k caches y once per iteration of a loop of m = 5 + k % 7
    iterations (8*m bytes in one block); 2000 calls."""
    _, _, exe = build([PROGRAMS / "many_calls.c"], tmp_path, "--enzc-tape-stats")
    done = subprocess.run([str(exe)], check=True, capture_output=True, text=True, timeout=60)
    ms = [5 + k % 7 for k in range(2000)]
    expected = (f"enzc: diffe_chain: 2000 calls, tape bytes per call: mean {sum(8 * m for m in ms) // 2000}, "
                f"max {8 * max(ms)}\n")
    assert done.stderr == expected
    assert done.stdout.count("grad ") == 3


def test_tape_stats_count_stack_and_arena_bytes(tmp_path: Path) -> None:
    """Stack blocks count their size; an arena counts its heap blocks (one of 4096
    bytes here) besides the once-per-call block (two arrays of n = 7 entries)."""
    _, _, exe = build([PROGRAMS / "flag_loop.c"], tmp_path, "--enzc-tape-stats")
    out = subprocess.run([str(exe)], check=True, capture_output=True, text=True, timeout=60).stderr
    assert out == "enzc: diffe_proj: 1 calls, tape bytes per call: mean 48, max 48\n"
    _, _, exe = build([PROGRAMS / "triangular.c"], tmp_path, "--enzc-tape-stats")
    out = subprocess.run([str(exe)], check=True, capture_output=True, text=True, timeout=60).stderr
    assert out == f"enzc: diffe_tri: 1 calls, tape bytes per call: mean {4096 + 2 * 8 * 7}, max {4096 + 2 * 8 * 7}\n"


def test_without_the_flag_nothing_is_counted(tmp_path: Path) -> None:
    module, _, exe = build([PROGRAMS / "many_calls.c"], tmp_path)
    assert "__enzc_tape_record" not in module and "__enzc_tape_report" not in module and "atexit" not in module
    assert subprocess.run([str(exe)], check=True, capture_output=True, text=True, timeout=60).stderr == ""


def test_split_pairs_are_reported(tmp_path: Path) -> None:
    """A recursive function's derivative calls its augmented/reverse pair, whose
    caches (a stack block in the tape, a tape-stack block) are listed too."""
    _, report, _ = build([PROGRAMS / "recursive_loops.c"], tmp_path, "--enzc-print-cache")
    assert ("; split_rec (augmented/reverse pair, stack blocks in its tape): 3 cached values; "
            "per call: 1 stack block(s) (48 bytes), 1 tape-stack block(s)\n") in report
    assert "; diffe_rec: 3 cached values; per call: 1 stack block(s) (48 bytes), 1 tape-stack block(s)\n" in report


def arena_bytes(pieces: list[int]) -> int:
    """Heap bytes `__enzc_arena_alloc` takes for these piece sizes (`cache_runtime`):
    16-byte aligned pieces; a new block (16-byte link + data) of at least 4096
    bytes and twice the previous block when the current one is full."""
    total = room = last = 0
    for p in pieces:
        n = -(-p // 16) * 16
        if n > room:
            last = max(2 * last, n + 16, 4096)
            total += last
            room = last - 16
        room -= n
    return total


def test_tape_stats_of_a_growing_arena(tmp_path: Path) -> None:
    """Row i of the triangular nest caches i + 1 doubles per call: the pieces fill
    five arena blocks; besides, two once-per-call arrays of n pointers/doubles."""
    _, _, exe = build([PROGRAMS / "triangular_arena_growth.c"], tmp_path, "--enzc-tape-stats")
    done = subprocess.run([str(exe)], check=True, capture_output=True, text=True, timeout=60)
    n = 140
    per_call = arena_bytes([8 * (i + 1) for i in range(n)]) + 2 * 8 * n
    assert done.stderr == f"enzc: diffe_tri: 2 calls, tape bytes per call: mean {per_call}, max {per_call}\n"
    assert arena_bytes([8 * (i + 1) for i in range(n)]) > 4096 * 4  # several blocks


def test_loop_invariant_values_are_cached_once_per_varying_iteration(tmp_path: Path) -> None:
    """matmul's `sin(in[r][i])` (its buffer is overwritten later, so it is taped) is the
    same for every output column `o`: its cache has two dimensions, not three. smear's
    middle loop writes the row its inner loop reads: that load keeps all three."""
    _, report, _ = build([PROGRAMS / "invariant_loads.c"], tmp_path, "--enzc-print-cache")
    sections = dict(re.findall(r"^; (split_\w+) .*?\n((?:;  .*\n?)*)", report, re.M))
    double = r"^;   %[\w.]+\.cache: double \(8 bytes\)((?: x n\(%[\w.]+\))+) = [^\n]*"
    matmul = re.findall(double, sections["split_matmul"], re.M)
    smear = re.findall(double, sections["split_smear"], re.M)
    assert sorted(d.count(" x ") for d in matmul) == [2, 3]  # sin(in[r][i]) per (r, i); w[o][i] per (r, o, i)
    assert [d.count(" x ") for d in smear] == [3]
    assert re.search(r"double \(8 bytes\) x n\(%[\w.]+\) x n\(%[\w.]+\) = .*the same in every iteration of",
                     sections["split_matmul"])


def test_values_the_same_for_every_query_are_cached_once(tmp_path: Path) -> None:
    """triangular_invariant.c: `kv[u][i]` read in `for t / for u <= t` is the same
    for every t, so it gets one array sized by the largest count of u over t,
    allocated once per call (it was a piece of the arena per t). `clobber` writes
    row t inside the t loop: its loads vary in t and stay per (t, u), in the arena."""
    _, report, exe = build([PROGRAMS / "triangular_invariant.c"], tmp_path, "--enzc-print-cache",
                           "--enzc-tape-stats")
    sections = dict(re.findall(r"^; (split_\w+) .*?\n((?:;  .*\n?)*)", report, re.M))
    once = (r"^;   %[\w.]+\.cache: double \(8 bytes\) x n\(%[\w.]+\) x n\(%[\w.]+\) = [^\n]*allocated once per call"
            r"[^\n]*the same in every iteration of %[\w.]+\n;     where n\(%[\w.]+\) = the largest over the iterations")
    for name in ("split_causal", "split_strict", "split_anti"):
        assert re.search(once, sections[name], re.M), name
    clobber = sections["split_clobber"]
    assert "the largest" not in clobber
    assert re.search(r"double \(8 bytes\) x n\(%[\w.]+\) x n\(%[\w.]+\) = [^\n]*per iteration of loop[^\n]*arena"
                     r"[^\n;]*\n", clobber)
    stats = subprocess.run([str(exe)], check=True, capture_output=True, text=True, timeout=60).stderr
    # anti (u < n - t, n = 7, d = 3): kv[t][i] and kv[u][i], 7 x 3 doubles each, on the stack
    assert "enzc: split_anti: 1 calls, tape bytes per call: mean 336, max 336\n" in stats


def test_cache_blocks_outlive_the_call(tmp_path: Path) -> None:
    """tape_reuse.c: a cache sized at run time is a block of the per-thread tape
    stack, not a malloc; repeated gradient calls that fit in what an earlier call
    left make no malloc at all (with malloc/free the heap top went back to the
    system after each call, and the next one page-faulted its tape in again)."""
    source = PROGRAMS / "tape_reuse.c"
    module, report, exe = build([source], tmp_path, "--enzc-print-cache", "-pthread", "-Wl,--wrap=malloc")
    d = body(module, "diffe_chain")
    assert cache_blocks(d) == 1 and calls(d, "__enzc_tape_free") == 1 and calls(d, "malloc") == 0
    assert "; diffe_chain: 1 cached values; per call: 1 tape-stack block(s)\n" in report
    out = subprocess.run([str(exe)], check=True, capture_output=True, text=True, timeout=60).stdout
    assert out.splitlines()[0] == "mallocs in repeated calls: 0"


def test_invariant_caches_are_stored_once_per_run_of_the_middle_loop(tmp_path: Path) -> None:
    """store_once.c: `in[r][i]` cached per (r, i) in `for r / for o / for i` is stored
    by one iteration of `o` only (the inner loop is versioned: the forward pass has
    one copy of it without the cache stores). Not where the inner count depends on
    `o` (`tri`: later iterations reach slots the first one did not)."""
    module, report, _ = build([PROGRAMS / "store_once.c"], tmp_path, "--enzc-print-cache")
    sections = dict(re.findall(r"^; (split_\w+) .*?\n((?:;  .*\n?)*)", report, re.M))
    once = "stored only by the first iteration of"
    assert sections["split_blocked"].count(once) == 2  # rows r and r + 1
    assert sections["split_late"].count(once) == 1
    assert once not in sections["split_tri"] and "the same in every iteration of" in sections["split_tri"]
    blocked = body(module, "augmented_blocked")
    again = re.findall(r"^[\w.]+\.again:\n(.*?)\n(?:\n|})", blocked, re.M | re.S)
    assert len(again) == 1 and "load double" in again[0] and "store" not in again[0]
