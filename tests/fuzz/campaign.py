"""A long fuzzing campaign: mutated IR, bitcode, objects and archives against enzc.

    python tests/fuzz/campaign.py --seconds 3600 [--cases N] [--first-seed S]
                                  [--kinds ll,bc,obj,ar] [--log FILE] [--failures DIR]
    python tests/fuzz/campaign.py --replay ll:1234      # rebuild and judge one case

(`make fuzz SECONDS=3600` runs the first form under `nice`.) Case i of a campaign is
(kind, seed) with seed = first-seed + i, the kind drawn by weight from the seed;
each case is reproducible on its own with --replay. Every failing case's input is
copied to the failures directory with the verdict. Progress and a final table of
outcomes go to the log (and stdout); the exit status is 1 if any case failed.
"""

from __future__ import annotations

import argparse
import collections
import random
import shutil
import signal
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from cases import KINDS, WEIGHTS, run_case  # noqa: E402
from harness import Verdict, warm_up  # noqa: E402
from seeds import build_seeds  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


def kind_of(seed: int, kinds: list[str]) -> str:
    rnd = random.Random(f"kind:{seed}")
    return rnd.choices(kinds, [WEIGHTS[k] for k in kinds])[0]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=60.0, help="stop after this long")
    ap.add_argument("--cases", type=int, default=0, help="stop after this many cases (0: no limit)")
    ap.add_argument("--first-seed", type=int, default=0)
    ap.add_argument("--kinds", default=",".join(KINDS))
    ap.add_argument("--log", type=Path, default=ROOT / "build" / "fuzz" / "campaign.log")
    ap.add_argument("--failures", type=Path, default=ROOT / "build" / "fuzz" / "failures")
    ap.add_argument("--work", type=Path, default=ROOT / "build" / "fuzz" / "work")
    ap.add_argument("--seeds", type=Path, default=ROOT / "build" / "fuzz" / "seeds")
    ap.add_argument("--replay", metavar="KIND:SEED", help="judge one case and show it")
    args = ap.parse_args()
    # The judges run LLVM's tools from inside the work dir: a relative path there
    # would not name the case, and every case would look rejected by LLVM.
    for option in ("log", "failures", "work", "seeds"):
        setattr(args, option, getattr(args, option).resolve())

    seeds = build_seeds(args.seeds)
    warm_up()
    if args.replay:
        kind, seed = args.replay.split(":")
        work = args.work / "replay"
        verdict = run_case(kind, int(seed), seeds, work)
        print(f"{kind}:{seed} {verdict.outcome} {verdict.detail}\ninputs in {work}")
        return 1 if verdict.failed else 0

    args.log.parent.mkdir(parents=True, exist_ok=True)
    kinds = args.kinds.split(",")
    counts: dict[str, collections.Counter[str]] = {k: collections.Counter() for k in kinds}
    start = time.monotonic()
    failed = 0
    with args.log.open("a") as log:
        def say(line: str) -> None:
            print(line, flush=True)
            log.write(line + "\n")
            log.flush()

        say(f"campaign: seeds from {args.first_seed}, kinds {kinds}, "
            f"{args.seconds:.0f} s, {args.cases or 'unlimited'} cases")
        i = 0
        signal.signal(signal.SIGTERM, signal.default_int_handler)
        try:
            while time.monotonic() - start < args.seconds and (not args.cases or i < args.cases):
                seed = args.first_seed + i
                kind = kind_of(seed, kinds)
                verdict = run_case(kind, seed, seeds, args.work / kind)
                counts[kind][verdict.outcome] += 1
                if verdict.failed:
                    failed += 1
                    _keep(args.work / kind, args.failures / f"{kind}-{seed}", verdict)
                    say(f"FAIL {kind}:{seed} {verdict.outcome}: {verdict.detail[:500]}")
                elif verdict.outcome == "unsupported" and counts[kind]["unsupported"] <= 20:
                    say(f"unsupported {kind}:{seed}: {verdict.detail[:200]}")
                elif " crashed " in verdict.detail:  # LLVM's own crash, enzc rejected it
                    say(f"LLVM crash {kind}:{seed} {verdict.outcome}: {verdict.detail[:200]}")
                i += 1
                if i % 200 == 0:
                    say(f"progress: {i} cases, {failed} failures, "
                        f"{time.monotonic() - start:.0f} s")
        except KeyboardInterrupt:  # SIGINT/SIGTERM: stop after the case, keep the summary
            say("campaign: interrupted")
        say(_summary(counts, i, failed, time.monotonic() - start, args.first_seed))
    return 1 if failed else 0


def _keep(work: Path, target: Path, verdict: Verdict) -> None:
    shutil.rmtree(target, ignore_errors=True)
    shutil.copytree(work, target, ignore=shutil.ignore_patterns("tmp", "prog*", "*.bc"))
    (target / "verdict.txt").write_text(f"{verdict.outcome}\n{verdict.detail}\n")


def _summary(counts: dict[str, collections.Counter[str]], cases: int, failed: int,
             seconds: float, first: int) -> str:
    lines = [f"summary: {cases} cases (seeds {first}..{first + cases - 1}) in {seconds:.0f} s, "
             f"{failed} failures"]
    for kind, counter in counts.items():
        total = sum(counter.values())
        detail = ", ".join(f"{outcome} {n}" for outcome, n in counter.most_common())
        lines.append(f"  {kind:<4} {total:6d}: {detail}")
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
