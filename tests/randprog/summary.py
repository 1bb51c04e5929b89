"""Counts of a campaign: outcomes per -O level, rejection classes with one example
each, the failures, and the largest oracle errors among passing programs (the margin
the tolerances leave)."""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from .campaign import FAILURES, Result

ORDER = ("pass", "pass_ad_only", "rejected", *FAILURES, "invalid")


@dataclass
class Summary:
    total: int = 0
    """Results expected (seeds x levels)."""
    seconds: float = 0.0
    counts: Counter[tuple[str, str]] = field(default_factory=Counter)
    """(opt, outcome) -> number."""
    classes: dict[str, list[Result]] = field(default_factory=lambda: defaultdict(list))
    failures: list[Result] = field(default_factory=list)
    worst_fd: dict[str, float] = field(default_factory=dict)
    """Precision class -> largest |AD - FD| / (|FD| + row scale) among passes."""
    worst_dot: dict[str, float] = field(default_factory=dict)
    """Precision class -> largest |<Jv,w> - <v,J^T w>| / sum |J_ij v_j w_i| among passes."""
    resampled: int = 0
    """Passing results that needed more than one input point."""
    seeds: set[int] = field(default_factory=set)
    by_feature: Counter[tuple[str, bool]] = field(default_factory=Counter)
    """(feature, rejected?) -> results of functions using the feature."""

    def add(self, r: Result) -> None:
        self.counts[r.opt, r.outcome] += 1
        self.seeds.add(r.seed)
        for f in r.features:
            self.by_feature[f, r.outcome == "rejected"] += 1
        if r.outcome == "rejected":
            self.classes[r.rejection_class].append(r)
        if r.failed:
            self.failures.append(r)
        if r.outcome in ("pass", "pass_ad_only"):
            self.worst_fd[r.precision] = max(self.worst_fd.get(r.precision, 0.0), r.fd_error)
            self.worst_dot[r.precision] = max(self.worst_dot.get(r.precision, 0.0), r.dot_error)
            self.resampled += r.points > 1

    @classmethod
    def from_jsonl(cls, path: Path) -> Summary:
        s = cls()
        for line in path.read_text().splitlines():
            s.add(Result(**json.loads(line)))
        s.total = sum(s.counts.values())
        return s

    @property
    def done(self) -> int:
        return sum(self.counts.values())

    def _count(self, outcome: str, opt: str | None = None) -> int:
        return sum(n for (o, out), n in self.counts.items()
                   if out == outcome and (opt is None or o == opt))

    def _uses(self, feature: str) -> int:
        return self.by_feature[feature, True] + self.by_feature[feature, False]

    def progress_line(self) -> str:
        parts = [f"{o} {self._count(o)}" for o in ORDER if self._count(o)]
        eta = self.seconds / self.done * (self.total - self.done) if self.done else 0.0
        return (f"[{self.done}/{self.total}] " + ", ".join(parts)
                + f" | {self.seconds / 60:.1f} min, eta {eta / 60:.1f} min")

    def render(self) -> str:
        opts = sorted({o for o, _ in self.counts})
        lines = [f"{len(self.seeds)} programs (seeds {min(self.seeds, default=0)}.."
                 f"{max(self.seeds, default=0)}) x {len(opts)} levels, {self.done} results, "
                 f"{self.seconds / 60:.1f} min"]
        for opt in opts + [None]:
            n = sum(c for (o, _), c in self.counts.items() if opt is None or o == opt)
            valid = n - self._count("invalid", opt)
            rej = self._count("rejected", opt)
            row = ", ".join(f"{out} {self._count(out, opt)}" for out in ORDER if self._count(out, opt))
            rate = 100.0 * rej / valid if valid else 0.0
            lines.append(f"  {opt or 'all':>4}: {row}  (rejection rate {rate:.1f}%)")
        if self.classes:
            lines.append("rejection classes (count: class / example):")
            for cls, rs in sorted(self.classes.items(), key=lambda kv: -len(kv[1])):
                ex = rs[0]
                by_opt = Counter(r.opt for r in rs)
                levels = ", ".join(f"{o} {c}" for o, c in sorted(by_opt.items()))
                lines.append(f"  {len(rs):4d} ({levels}): {cls}")
                partial = Counter(r.partial for r in rs if r.partial)
                lines.append(f"       e.g. seed {ex.seed} {ex.opt}: {ex.detail.splitlines()[0][:200]}")
                for k, n in sorted(partial.items(), key=lambda kv: -kv[1]):
                    lines.append(f"       {n:4d} x each mode alone: {k[:200]}")
        features = sorted({f for f, _ in self.by_feature},
                          key=lambda f: -self.by_feature[f, True] / self._uses(f))
        lines.append("rejection rate of the programs using each feature: " + ", ".join(
            f"{f} {100 * self.by_feature[f, True] / self._uses(f):.0f}%" for f in features))
        if self.failures:
            lines.append("failures:")
            for r in sorted(self.failures, key=lambda r: (r.seed, r.opt)):
                first = r.detail.strip().splitlines()[:2]
                lines.append(f"  seed {r.seed} {r.opt}: {r.outcome}: {' / '.join(first)[:240]}")
        lines.append("largest relative oracle errors among passes: "
                     + ", ".join(f"{p} code: fd {self.worst_fd[p]:.2g}, dot {self.worst_dot[p]:.2g}"
                                 for p in sorted(self.worst_fd))
                     + f"; {self.resampled} passes needed another input point")
        return "\n".join(lines)
