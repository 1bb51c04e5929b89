"""Fuzz cases: a kind, a seeded Random, and the files to judge.

    ll   mutated IR text              python -m enzc.ir   vs llvm-as-22
    bc   mutated bitcode              python -m enzc.ir   vs opt-22 -passes=verify
    obj  mutated object in a library  enzcc main.o ...    vs clang-22 (ld)
    ar   mutated archive              enzcc main.o lib.a  vs clang-22 (ld)

A case is reproducible from (kind, seed): `campaign.py --replay KIND:SEED` rebuilds it.
"""

from __future__ import annotations

import random
import shutil
from pathlib import Path

from harness import Verdict, judge_ir, judge_link
from mutate import mutate_ar, mutate_bytes, mutate_elf, mutate_ll
from seeds import Seeds

KINDS = ("ll", "bc", "obj", "ar")
WEIGHTS = {"ll": 55, "bc": 10, "obj": 17, "ar": 18}
"""Share of each kind in a campaign: text IR is cheapest to judge and richest in syntax."""


def make_case(kind: str, rnd: random.Random, seeds: Seeds, work: Path) -> list[Path]:
    """Write the case's input files into `work`; return what the judge takes."""
    work.mkdir(parents=True, exist_ok=True)
    if kind == "ll":
        seed, donor = rnd.choice(seeds.ll), rnd.choice(seeds.ll)
        case = work / "case.ll"
        case.write_bytes(mutate_ll(seed.read_bytes(), rnd, donor.read_bytes()))
        return [case]
    if kind == "bc":
        seed = rnd.choice(seeds.bc)
        case = work / "case.bc"
        data = seed.read_bytes()
        case.write_bytes(mutate_bytes(data, rnd, start=rnd.choice([0, 4, 20]) % len(data)))
        return [case]
    if kind == "obj":
        group = rnd.choice(_object_groups(seeds))
        victim = rnd.randrange(len(group))
        inputs = [seeds.main_object]
        for k, path in enumerate(group):
            if k == victim:
                mutated = work / f"m-{path.name}"
                mutated.write_bytes(mutate_elf(path.read_bytes(), rnd))
                inputs.append(mutated)
            else:
                inputs.append(path)
        return inputs
    seed = rnd.choice(seeds.archives)
    case = work / f"m-{seed.name}"
    case.write_bytes(mutate_ar(seed.read_bytes(), rnd))
    return [seeds.main_object, case]


def _object_groups(seeds: Seeds) -> list[list[Path]]:
    """Sets of objects that, with main.o, make the test program: by how they were built."""
    groups: dict[str, list[Path]] = {}
    for path in seeds.objects:
        groups.setdefault(path.name.split(".", 1)[1], []).append(path)
    return list(groups.values())


def judge(kind: str, inputs: list[Path], work: Path) -> Verdict:
    if kind in ("ll", "bc"):
        return judge_ir(kind, inputs[0], work)
    return judge_link(kind, inputs, work)


def run_case(kind: str, seed: int, seeds: Seeds, work: Path) -> Verdict:
    """Build and judge case (kind, seed) in `work`."""
    rnd = random.Random(f"{kind}:{seed}")
    shutil.rmtree(work, ignore_errors=True)
    return judge(kind, make_case(kind, rnd, seeds, work), work)
