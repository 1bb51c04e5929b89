"""Command line (run from tests/, or through `make fuzz-ad` / `make reduce-ad`):

    python -m randprog fuzz --n 1000 --seed 1 [--opt O0,O2] [--jobs 2] [--results DIR]
    python -m randprog show SEED            the unit that checks one seed
    python -m randprog check SEED [--opt O2]    one seed, with the oracle's complaints
    python -m randprog reduce SEED --opt O2     shrink a failing or rejected seed (ddmin)
    python -m randprog regress SEED --code FUNCTION.c --opt O2 --out PATH.c
                                            gradcheck program from a (reduced) function
    python -m randprog summary DIR          the summary of a results folder again
    python -m randprog features             the features and their probabilities
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from .build import REPO
from .features import FEATURES, select

DEFAULT_RESULTS = REPO / "build" / "randprog"


def _levels(text: str) -> list[str]:
    """"O0,O2" or "-O2" -> ["-O0", "-O2"] / ["-O2"]."""
    return [lv if lv.startswith("-") else "-" + lv for lv in text.split(",") if lv]


def _features(args: argparse.Namespace) -> dict[str, float]:
    split = lambda s: [x for x in (s or "").split(",") if x]  # noqa: E731
    return select(split(args.only), split(args.without))


def _cmd_fuzz(args: argparse.Namespace) -> int:
    from .runner import run_campaign
    seeds = list(range(args.seed, args.seed + args.n))
    results = Path(args.results or DEFAULT_RESULTS / f"seed{args.seed}-n{args.n}").resolve()
    summary = run_campaign(seeds, args.opt, results, args.batch, args.jobs, _features(args))
    text = summary.render()
    (results / "summary.txt").write_text(text + "\n")
    print(text)
    print(f"results: {results}")
    return 1 if summary.failures else 0


def _cmd_show(args: argparse.Namespace) -> int:
    from .generator import generate
    from .harness import render_unit
    print(render_unit([generate(args.seed, _features(args))]), end="")
    return 0


def _cmd_check(args: argparse.Namespace) -> int:
    from .campaign import check_functions
    from .generator import generate
    fn = generate(args.seed, _features(args))
    failed = False
    with tempfile.TemporaryDirectory(prefix="randprog-") as tmp:
        for opt in args.opt:
            for r in check_functions([fn], opt, Path(tmp)):
                print(f"seed {r.seed} {r.opt}: {r.outcome} (points {r.points})")
                if r.detail:
                    print("  " + r.detail.strip().replace("\n", "\n  "))
                failed |= r.failed
    return 1 if failed else 0


def _cmd_reduce(args: argparse.Namespace) -> int:
    from .reduce import reduce_seed
    out = Path(args.out) if args.out else DEFAULT_RESULTS / "reduced" / f"{args.seed}{args.opt[0]}"
    return reduce_seed(args.seed, args.opt[0], out, _features(args))


def _cmd_regress(args: argparse.Namespace) -> int:
    import dataclasses

    from .generator import generate
    from .regression import write_regression
    fn = generate(args.seed, _features(args))
    if args.code:
        fn = dataclasses.replace(fn, code=Path(args.code).read_text())
    return write_regression(fn, args.opt[0], args.point, Path(args.out), args.reason)


def _cmd_summary(args: argparse.Namespace) -> int:
    from .summary import Summary
    print(Summary.from_jsonl(Path(args.dir) / "results.jsonl").render())
    return 0


def _cmd_features(args: argparse.Namespace) -> int:
    for f in FEATURES:
        print(f"{f.name:12} {f.probability:4.2f}  {f.what}")
    return 0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m randprog", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)

    def command(name: str, fn, help_text: str) -> argparse.ArgumentParser:  # noqa: ANN001
        c = sub.add_parser(name, help=help_text)
        c.set_defaults(fn=fn)
        c.add_argument("--only", help="comma-separated features to use (all others off)")
        c.add_argument("--without", help="comma-separated features to turn off")
        c.add_argument("--opt", type=_levels, default=["-O0", "-O2"],
                       help="comma-separated levels, e.g. O2 or O0,O2 (the default)")
        return c

    c = command("fuzz", _cmd_fuzz, "check N seeds from SEED")
    c.add_argument("--n", type=int, default=100)
    c.add_argument("--seed", type=int, default=1)
    c.add_argument("--batch", type=int, default=8, help="functions per translation unit")
    c.add_argument("--jobs", type=int, default=1, help="units built at the same time")
    c.add_argument("--results", help=f"results folder (default {DEFAULT_RESULTS}/seedS-nN)")
    for name, fn, text in (("show", _cmd_show, "print the unit of one seed"),
                           ("check", _cmd_check, "check one seed"),
                           ("reduce", _cmd_reduce, "reduce a failing seed")):
        c = command(name, fn, text)
        c.add_argument("seed", type=int)
        if name == "reduce":
            c.add_argument("--out", help="folder for the reduced unit")
    c = command("regress", _cmd_regress, "gradcheck program from a (reduced) function")
    c.add_argument("seed", type=int)
    c.add_argument("--code", help="the function's code (function.c of a reduction)")
    c.add_argument("--point", type=int, default=0, help="input point of the failure")
    c.add_argument("--out", required=True)
    c.add_argument("--reason", default="", help="one line: what the engine gets wrong")
    c = command("summary", _cmd_summary, "summarize a results folder")
    c.add_argument("dir")
    command("features", _cmd_features, "list the features")
    args = p.parse_args(argv)
    return args.fn(args)


if __name__ == "__main__":
    sys.exit(main())
