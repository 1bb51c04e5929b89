"""Delta debugging of a failing (or rejected) random function.

The function's code is cut into units — top-level definitions, then statements,
where a statement that opens a block (`for (...) {`) takes its whole block — and
ddmin removes as many units as it can while the outcome stays the same (same
failure kind, or the same rejection class). The driver and adaptors are regenerated
around the candidate every time, so the function's interface never changes.

Candidates are built with `-ftrivial-auto-var-init=pattern` (an uninitialized local
left behind by a deletion reads as NaN, so such a candidate is invalid rather than
failing by chance) and must compile with clang without uninitialized-use or
missing-return warnings. The end result is checked once more without the flag.
"""

from __future__ import annotations

import dataclasses
import re
import subprocess
import tempfile
from pathlib import Path
from collections.abc import Callable

from .campaign import Result, check_functions
from .generator import RandomFunction, generate
from .harness import render_unit

CLANG_CHECK = ["clang-22", "-fsyntax-only", "-Wall", "-Werror", "-Wno-unused-variable",
               "-Wno-unused-but-set-variable", "-Wno-unused-function", "-Wno-self-assign"]


def units_of(code: str) -> list[str]:
    """Top-level chunks of code: each definition (with its body) is one unit."""
    units, current, depth = [], [], 0
    for line in code.splitlines(keepends=True):
        current.append(line)
        depth += line.count("{") - line.count("}")
        if depth == 0 and line.rstrip().endswith(("}", ";")):
            units.append("".join(current))
            current = []
    if current:
        units.append("".join(current))
    return units


def statements_of(body: list[str]) -> list[list[str]]:
    """Statement units of a list of body lines: a line, or a line opening a block
    with everything up to its closing brace."""
    units: list[list[str]] = []
    k = 0
    while k < len(body):
        depth = body[k].count("{") - body[k].count("}")
        end = k + 1
        while depth > 0 and end < len(body):
            depth += body[end].count("{") - body[end].count("}")
            end += 1
        units.append(body[k:end])
        k = end
    return units


def ddmin(items: list, still_fails: Callable[[list], bool]) -> list:  # noqa: ANN401
    """Zeller's ddmin, deletion only: a 1-minimal sublist of items that still fails."""
    n = 2
    while len(items) >= 2:
        chunk = max(1, len(items) // n)
        removed = False
        for start in range(0, len(items), chunk):
            candidate = items[:start] + items[start + chunk:]
            if candidate and still_fails(candidate):
                items, n, removed = candidate, max(n - 1, 2), True
                break
        if not removed:
            if chunk == 1:
                break
            n = min(len(items), n * 2)
    return items


def signature_of(result: Result) -> tuple[str, str]:
    """What must stay the same: the outcome and, for rejections, the class; for
    wrong gradients the kind of check that failed (primal, forward/reverse, dot, FD)."""
    if result.outcome == "rejected":
        return result.outcome, result.rejection_class
    if result.outcome == "wrong":
        text = result.detail
        kind = ("primal" if "primal" in text else "fd" if "finite differences" in text
                else "dot" if "dot test" in text else "mode" if "forward" in text else "other")
        return result.outcome, kind
    return result.outcome, ""


class Reducer:
    """Holds the function being reduced and the outcome to keep."""

    def __init__(self, fn: RandomFunction, opt: str, work: Path, log: Callable[[str], None] = print):
        self.fn, self.opt, self.work, self.log = fn, opt, work, log
        self.target = ("", "")
        self.modes: tuple[str, ...] = ("fwd", "rev")
        self.tests = 0

    def start(self) -> Result | None:
        """The outcome of the unreduced function; sets what reduction must keep (a
        failure seen in one mode alone is reduced in that mode alone)."""
        first = self.outcome(self.fn.code, "", single_mode=True)
        if first is not None:
            self.target = signature_of(first)
            for mode, label in (("rev", "reverse"), ("fwd", "forward")):
                if first.outcome != "rejected" and f"{label} mode alone" in first.detail:
                    self.modes = (mode,)
        return first

    def outcome(self, code: str, flags: str, single_mode: bool = False) -> Result | None:
        fn = dataclasses.replace(self.fn, code=code)
        unit = self.work / "candidate.c"
        unit.write_text(render_unit([fn], self.modes))
        if subprocess.run(CLANG_CHECK + [str(unit)], capture_output=True).returncode:
            return None
        self.tests += 1
        return check_functions([fn], f"{self.opt} {flags}".strip(), self.work / "build",
                               self.modes, single_mode)[0]

    def still_fails(self, code: str) -> bool:
        r = self.outcome(code, "-ftrivial-auto-var-init=pattern")
        return r is not None and signature_of(r) == self.target

    def reduce(self) -> str:
        code = self.fn.code
        for _ in range(5):  # until nothing more goes
            before = code
            tops = units_of(code)
            main, helpers = tops[-1], tops[:-1]
            kept = ddmin(helpers, lambda hs, main=main: self.still_fails("".join(hs) + main)) \
                if helpers else []
            code = "".join(kept) + main
            code = self._reduce_bodies(code)
            code = self._simplify(code)
            self.log(f"  {len(before.splitlines())} -> {len(code.splitlines())} lines "
                     f"({self.tests} builds)")
            if code == before:
                break
        return code

    def _reduce_bodies(self, code: str) -> str:
        """ddmin over the statements of each function body, then inside each block."""
        tops = units_of(code)
        for k, top in enumerate(tops):
            lines = top.splitlines(keepends=True)
            if not lines[0].rstrip().endswith("{") or len(lines) < 3:
                continue
            head, tail = lines[0], lines[-1]

            def whole(us: list[list[str]], k: int = k, head: str = head, tail: str = tail) -> str:
                return "".join(tops[:k]) + head + _flat(us) + tail + "".join(tops[k + 1:])

            units = self._reduce_list(statements_of(lines[1:-1]), whole)
            tops[k] = head + _flat(units) + tail
        return "".join(tops)

    def _reduce_list(self, units: list[list[str]], whole: Callable[[list[list[str]]], str]
                     ) -> list[list[str]]:
        """ddmin over statement units, blocks replaced by their bodies, then the same
        inside each remaining block."""
        units = ddmin(units, lambda us: self.still_fails(whole(us)))
        units = self._hoist(units, whole)
        for idx, unit in enumerate(units):
            if len(unit) < 3:
                continue
            head, tail = unit[0], unit[-1]

            def inside(us: list[list[str]], idx: int = idx, head: str = head, tail: str = tail) -> str:
                block = [head] + [ln for u in us for ln in u] + [tail]
                return whole(units[:idx] + [block] + units[idx + 1:])

            inner = self._reduce_list(statements_of(unit[1:-1]), inside)
            units[idx] = [head] + [ln for u in inner for ln in u] + [tail]
        return units


    def _hoist(self, units: list[list[str]], whole: Callable[[list[list[str]]], str]
               ) -> list[list[str]]:
        """Replace a loop or an if (with its else) by the statements of one body, where
        the outcome stays the same (a body using the loop counter does not compile)."""
        k = 0
        while k < len(units):
            span = 2 if k + 1 < len(units) and units[k + 1][0].lstrip().startswith("else {") else 1
            bodies = [[ln[4:] if ln.startswith("    ") else ln for ln in u[1:-1]]
                      for u in units[k:k + span] if len(u) >= 3 and u[0].rstrip().endswith("{")]
            for body in bodies:
                candidate = units[:k] + statements_of(body) + units[k + span:]
                if self.still_fails(whole(candidate)):
                    units = candidate
                    break
            else:
                k += 1
        return units

    def _simplify(self, code: str) -> str:
        """Replace right-hand sides (and initializer elements) by one of the values
        they read, or 0.5, where the outcome stays the same."""
        lines = code.splitlines(keepends=True)
        for k, line in enumerate(lines):
            for candidate in simpler_lines(line)[:4]:
                trial = lines[:k] + [candidate] + lines[k + 1:]
                if self.still_fails("".join(trial)):
                    lines[k] = candidate
                    break
        return "".join(lines)


_ASSIGN = re.compile(r"^(\s*(?:(?:double|float|int) \w+(?:\[\d+\])?|[\w\[\]]+) \S?= )(.+)(;\s*)$")
_OPERAND = re.compile(r"\b(?:in|v|acc|sum|dot|t|h|r|f|st|sf|sel|w|fl|s|x|b|m|c|g|sc|o|p|q|fa)\d*"
                      r"(?:\[[\w +%-]+\])?(?![\w(\[])")


def simpler_lines(line: str) -> list[str]:
    """Candidate simplifications of an assignment or initialized declaration: the
    right-hand side replaced by one value it reads, or by 0.5."""
    m = _ASSIGN.match(line)
    if not m or "{" in m.group(1):
        return []
    lhs, rhs, end = m.groups()
    if rhs.startswith("{"):
        items = _top_level_items(rhs.strip()[1:-1])
        simple = [(_OPERAND.findall(i) or ["0.5"])[0] for i in items]
        return [f"{lhs}{{{', '.join(simple)}}}{end}"] if simple != items else []
    operands = list(dict.fromkeys(o for o in _OPERAND.findall(rhs) if o != rhs.strip()))
    return [f"{lhs}{o}{end}" for o in operands] + ([f"{lhs}0.5{end}"] if rhs.strip() != "0.5" else [])


def _top_level_items(text: str) -> list[str]:
    """`a, f(b, c), d` -> ["a", "f(b, c)", "d"]."""
    items, depth, current = [], 0, ""
    for ch in text:
        depth += (ch in "([{") - (ch in ")]}")
        if ch == "," and depth == 0:
            items.append(current.strip())
            current = ""
        else:
            current += ch
    return items + [current.strip()]


def _flat(units: list[list[str]]) -> str:
    return "".join(ln for u in units for ln in u)


def reduce_seed(seed: int, opt: str, out: Path, probabilities: dict[str, float]) -> int:
    """Reduce the function of seed at opt; write out/reduced.c (unit) and
    out/function.c (the code alone). Exit status 0 when it still fails at the end."""
    fn = generate(seed, probabilities)
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="randprog-reduce-") as tmp:
        red = Reducer(fn, opt, Path(tmp))
        first = red.start()
        if first is None or first.outcome in ("pass", "pass_ad_only", "invalid"):
            print(f"seed {seed} {opt}: {first.outcome if first else 'invalid C'}: nothing to reduce")
            return 1
        print(f"seed {seed} {opt}: {first.outcome} {red.target[1]}: reducing "
              f"{len(fn.code.splitlines())} lines")
        code = red.reduce()
        final = red.outcome(code, "")
    kept = final is not None and signature_of(final) == red.target
    reduced = dataclasses.replace(fn, code=code)
    (out / "function.c").write_text(code)
    (out / "reduced.c").write_text(render_unit([reduced], red.modes))
    (out / "outcome.txt").write_text(f"{final.outcome if final else '?'}\n"
                                     f"{final.detail if final else ''}\n")
    print(f"{len(code.splitlines())} lines, {red.tests} builds; "
          f"{'still' if kept else 'NO LONGER'} {red.target[0]} without the pattern flag: {out}")
    return 0 if kept else 1

