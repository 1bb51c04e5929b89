"""Run a campaign: seeds in batches (one unit per batch and -O level), a progress
line, every result appended to results.jsonl, each failure saved with what is needed
to reproduce it, and a summary at the end (see summary.py)."""

from __future__ import annotations

import json
import shutil
import sys
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import asdict
from pathlib import Path

from .campaign import Result, check_functions
from .features import select
from .generator import generate
from .harness import render_unit
from .summary import Summary


def _check_batch(seeds: list[int], opt: str, probabilities: dict[str, float],
                 workdir: Path) -> list[Result]:
    fns = [generate(s, probabilities) for s in seeds]
    results = check_functions(fns, opt, workdir)
    shutil.rmtree(workdir, ignore_errors=True)
    return results


def save_failure(result: Result, probabilities: dict[str, float], folder: Path) -> Path:
    """folder/<outcome>-<seed><opt>/: the function alone in a unit, what went wrong,
    and how to reproduce and reduce it."""
    where = folder / f"{result.outcome}-{result.seed}{result.opt}"
    where.mkdir(parents=True, exist_ok=True)
    fn = generate(result.seed, probabilities)
    (where / "unit.c").write_text(render_unit([fn]))
    (where / "detail.txt").write_text(result.detail + "\n")
    (where / "README").write_text(
        f"seed {result.seed}, {result.opt}: {result.outcome}\n"
        f"features: {' '.join(result.features)}\n\n"
        f"reproduce:  .venv/bin/enzcc {result.opt} {where}/unit.c -lm -o /tmp/u && /tmp/u all 0\n"
        f"            make fuzz-ad SEED={result.seed} N=1\n"
        f"reduce:     make reduce-ad SEED={result.seed} OPT={result.opt}\n")
    return where


def run_campaign(seeds: list[int], opts: list[str], results: Path, batch: int = 8,
                 jobs: int = 1, probabilities: dict[str, float] | None = None,
                 out=sys.stderr) -> Summary:  # noqa: ANN001 - a text stream
    """Check every seed at every opt level; return the summary."""
    probs = probabilities if probabilities is not None else select()
    results.mkdir(parents=True, exist_ok=True)
    log = (results / "results.jsonl").open("a")
    summary = Summary(total=len(seeds) * len(opts))
    start = time.monotonic()
    tasks = [(seeds[k:k + batch], opt) for opt in opts for k in range(0, len(seeds), batch)]
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        futures = [pool.submit(_check_batch, chunk, opt, probs,
                               results / "work" / f"{chunk[0]}{opt}") for chunk, opt in tasks]
        for future in as_completed(futures):
            for r in future.result():
                summary.add(r)
                log.write(json.dumps(asdict(r)) + "\n")
                if r.failed:
                    save_failure(r, probs, results / "failures")
            log.flush()
            summary.seconds = time.monotonic() - start
            print(summary.progress_line(), file=out, flush=True)
    log.close()
    shutil.rmtree(results / "work", ignore_errors=True)
    return summary
