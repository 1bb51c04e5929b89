"""Scaling measured in interleaved rounds, for a machine other jobs share.

A run that times 1 thread, then 2, then 4 charges a burst of other work to
whichever count it fell on; one such burst moved the Brusselator's ratio growth
from 1.07x to 1.24x. Here each round times every count once (objective and
gradient from the same process, best of its repetitions), the order of the counts
rotating from round to round, and the summary takes, per count, the median over
the rounds of the gradient/objective ratio and of the gradient time. Every
round's figures are printed too, with the load average when it started, so
nothing is hidden: the criterion is judged on the medians and each round's growth
is shown beside them. A reference build (the program without `-fopenmp`) can be
timed in every round too, so its comparison with the 1-thread gradient sees the
same load.
"""

from __future__ import annotations

import os
from statistics import median
from typing import Callable

Measure = Callable[[int], tuple[float, float]]
"""Runs the program at a count (threads or ranks): (objective s, gradient s)."""


SERIAL = 0
"""The key of a reference build (`serial`) timed in every round beside the counts."""


def run_rounds(counts: tuple[int, ...], rounds: int, measure: Measure, unit: str,
               serial: Callable[[], tuple[float, float]] | None = None) -> dict[int, list[tuple[float, float]]]:
    """Times every count (and `serial`, if given) once per round, rotating the
    order; prints each round. The serial times are under key `SERIAL`."""
    keys = ((SERIAL,) if serial is not None else ()) + counts
    times: dict[int, list[tuple[float, float]]] = {c: [] for c in keys}
    label = {c: "serial" if c == SERIAL else f"{c} {unit}" for c in keys}
    print(f"{'round':>5} {'load':>5} " + " ".join(f"{label[c] + ' grad(s) g/o':>22}" for c in keys)
          + f" {'growth':>7}")
    for r in range(rounds):
        load = os.getloadavg()[0]
        order = keys[r % len(keys):] + keys[: r % len(keys)]
        got = {c: serial() if c == SERIAL else measure(c) for c in order}  # type: ignore[misc]
        for c in keys:
            times[c].append(got[c])
        ratios = {c: got[c][1] / got[c][0] for c in keys}
        print(f"{r + 1:>5} {load:5.1f} " + " ".join(f"{got[c][1]:>13.3g} {ratios[c]:8.1f}" for c in keys)
              + f" {ratios[counts[-1]] / ratios[counts[0]]:6.2f}x")
    return times


def summarize(times: dict[int, list[tuple[float, float]]], unit: str) -> None:
    """Per count: median objective, gradient, ratio and speed-up; the ratio growth
    from the first to the last count on the medians (issue 14: at most 1.2x)."""
    med = {c: (median(f for f, _ in ts), median(g for _, g in ts), median(g / f for f, g in ts))
           for c, ts in times.items()}
    counts = [c for c in times if c != SERIAL]
    rounds = len(times[counts[0]])
    print(f"medians over {rounds} rounds:")
    print(f"{unit:>8} {'objective(s)':>13} {'gradient(s)':>12} {'grad/obj':>9} {'grad speed-up':>14}")
    base = med[counts[0]][1]
    for c in counts:
        f, g, ratio = med[c]
        print(f"{c:>8} {f:13.3g} {g:12.3g} {ratio:9.1f} {base / g:14.2f}")
    if SERIAL in med:
        f, g, ratio = med[SERIAL]
        print(f"{'serial':>8} {f:13.3g} {g:12.3g} {ratio:9.1f} {'':>14}")
        print(f"{counts[0]}-{unit[:-1]} gradient / serial gradient (medians): {base / g:.2f}x; per round: "
              + ", ".join(f"{p[1] / s[1]:.2f}" for p, s in zip(times[counts[0]], times[SERIAL])))
    growth = med[counts[-1]][2] / med[counts[0]][2]
    per_round = [(times[counts[-1]][r][1] / times[counts[-1]][r][0]) / (times[counts[0]][r][1] / times[counts[0]][r][0])
                 for r in range(rounds)]
    print(f"ratio growth {counts[0]} -> {counts[-1]} {unit} (medians): {growth:.2f}x (target <= 1.2x); "
          f"per round: {', '.join(f'{x:.2f}' for x in per_round)}; "
          f"{sum(x > 1.2 for x in per_round)} of {rounds} rounds above 1.2x")
