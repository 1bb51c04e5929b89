"""What the suite contains: the C programs, the benchmarks and their inputs.

A *program* is one C driver (built once per tool); a *benchmark* is a program
plus fixed options (ode-euler and ode-rk4 share the ode program); an *input*
is a data file or a size spec.  Input sizes, used as the plot's x-axis, are
the number of floating-point values the objective reads (active parameters
and constant data alike).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

C_DIR = Path(__file__).resolve().parent / "c"
COMMON_SOURCES = ("adbench.c",)


@dataclass(frozen=True)
class Program:
    """A C driver program: shared sources plus one derivative source per kind."""

    name: str
    sources: tuple[str, ...]
    """Sources every tool compiles: the driver's main and the objective."""
    manual_source: str
    """The hand-written derivative."""
    ad_source: str
    """The derivative through `__enzyme_autodiff` on the unmodified objective."""

    def source_paths(self, derivative: str) -> list[Path]:
        """All sources of the build with the `manual` or `ad` derivative."""
        chosen = {"manual": self.manual_source, "ad": self.ad_source}[derivative]
        return [C_DIR / s for s in (*COMMON_SOURCES, *self.sources, chosen)]


PROGRAMS: dict[str, Program] = {
    p.name: p
    for p in (
        Program("gmm", ("gmm_main.c", "gmm.c"), "gmm_manual.c", "gmm_ad.c"),
        Program("ba", ("ba_main.c", "ba.c", "ba_jacobian.c"), "ba_manual.c", "ba_ad.c"),
        Program("lstm", ("lstm_main.c", "lstm.c"), "lstm_manual.c", "lstm_ad.c"),
        Program("ode", ("ode_main.c", "ode.c"), "ode_manual.c", "ode_ad.c"),
        Program("fft", ("fft_main.c", "fft.c"), "fft_manual.c", "fft_ad.c"),
        Program("bruss", ("bruss_main.c", "bruss.c"), "bruss_manual.c", "bruss_ad.c"),
        Program("gpt", ("gpt_main.c", "gpt.c"), "gpt_manual.c", "gpt_ad.c"),
    )
}


@dataclass(frozen=True)
class Input:
    """One input of one benchmark."""

    name: str
    """The CSV's `input` column."""
    arg: str
    """The program's INPUT argument: a data file path or a size spec."""
    size: int
    """Floating-point values the objective reads (the plot's x-axis)."""
    options: tuple[str, ...] = ()
    """Extra program options for this input (e.g. --replicate)."""
    memory: int = 0
    """Estimated bytes the program needs, when large enough to matter."""


@dataclass(frozen=True)
class Benchmark:
    """A program run with fixed options on a list of inputs."""

    name: str
    program: str
    options: tuple[str, ...] = ()
    data_folder: str | None = None
    """Sub-folder of the ADBench data directory, or None for synthetic inputs."""


BENCHMARKS: tuple[Benchmark, ...] = (
    Benchmark("gmm", "gmm", data_folder="gmm"),
    Benchmark("ba", "ba", data_folder="ba"),
    Benchmark("lstm", "lstm", data_folder="lstm"),
    Benchmark("ode-euler", "ode", ("--method", "euler")),
    Benchmark("ode-rk4", "ode", ("--method", "rk4")),
    Benchmark("fft", "fft"),
    Benchmark("bruss", "bruss"),
    Benchmark("gpt", "gpt"),
)


def benchmark(name: str) -> Benchmark:
    """The benchmark called `name`."""
    for b in BENCHMARKS:
        if b.name == name:
            return b
    raise KeyError(name)


def _header(path: Path, count: int) -> list[int]:
    """The first `count` integers of a data file (its size header)."""
    with path.open() as f:
        tokens = f.read(256).split()[:count]
    return [int(t) for t in tokens]


def _natural_key(text: str) -> list[object]:
    return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", text)]


def _gmm_inputs(folder: Path, quick: bool) -> list[Input]:
    sets = ("1k",) if quick else ("1k", "10k", "2.5M")
    found: list[Input] = []
    for subset in sets:
        for path in sorted((folder / subset).glob("gmm_d*_K*.txt"), key=lambda p: _natural_key(p.name)):
            d, k, n = _header(path, 3)
            replicate = subset == "2.5M"
            found.append(
                Input(
                    f"{subset}/{path.stem.removeprefix('gmm_')}",
                    str(path),
                    k * (d + 1) * (d + 2) // 2 + n * d,
                    ("--replicate",) if replicate else (),
                    memory=8 * n * d,
                )
            )
    return found[:1] if quick else found


def _ba_inputs(folder: Path, quick: bool) -> list[Input]:
    found = []
    for path in sorted(folder.glob("ba*_n*_m*_p*.txt"), key=lambda p: _natural_key(p.name)):
        n, m, p = _header(path, 3)
        # CSR Jacobian (31 values + indices per observation), inputs, errors
        memory = 31 * p * 12 + 8 * (11 * n + 3 * m + p) + p * (16 + 8 + 24 + 4)
        found.append(Input(path.stem, str(path), 11 * n + 3 * m + 3 * p, memory=memory))
    return found[:1] if quick else found


def _lstm_inputs(folder: Path, quick: bool) -> list[Input]:
    found = []
    for path in sorted(folder.glob("lstm_l*_c*.txt"), key=lambda p: _natural_key(p.name)):
        l, c, b = _header(path, 3)
        found.append(Input(path.stem.removeprefix("lstm_"), str(path), 10 * l * b + 3 * b + c * b))
    return found[:1] if quick else found


def _spec(name_fmt: str, **sizes: int) -> tuple[str, str]:
    return name_fmt.format(**sizes), ",".join(f"{k}={v}" for k, v in sizes.items())


def _ode_inputs(quick: bool) -> list[Input]:
    ns = (32,) if quick else (32, 128, 512, 2048)
    steps = 100 if quick else 200
    return [Input(*_spec("n{n}_s{steps}", n=n, steps=steps), size=2 * n) for n in ns]


def _fft_inputs(quick: bool) -> list[Input]:
    ns = (1 << 10,) if quick else tuple(1 << e for e in range(10, 21, 2))
    return [Input(*_spec("n{n}", n=n), size=2 * n) for n in ns]


def _bruss_inputs(quick: bool) -> list[Input]:
    ns = (16,) if quick else (16, 32, 64, 128)
    steps = 20 if quick else 50
    return [Input(*_spec("n{n}_s{steps}", n=n, steps=steps), size=2 * n * n + 3) for n in ns]


GPT_SIZES = (
    # (vocabulary, context, width, blocks, heads, batch)
    (64, 16, 32, 1, 2, 2),
    (128, 32, 64, 2, 4, 4),
    (256, 64, 96, 2, 4, 4),
    (512, 64, 128, 4, 4, 4),
)


def _gpt_inputs(quick: bool) -> list[Input]:
    found = []
    for v, t, c, l, h, b in GPT_SIZES[:1] if quick else GPT_SIZES:
        name, spec = _spec("v{v}_t{t}_c{c}_l{l}", v=v, t=t, c=c, l=l, h=h, b=b)
        params = (v + t) * c + l * (12 * c * c + 13 * c) + 2 * c
        found.append(Input(name, spec, params))
    return found


def inputs(bench: Benchmark, data_dir: Path, quick: bool) -> list[Input]:
    """The inputs `bench` runs: the smallest only when `quick`."""
    match bench.program:
        case "gmm":
            return _gmm_inputs(data_dir / "gmm", quick)
        case "ba":
            return _ba_inputs(data_dir / "ba", quick)
        case "lstm":
            return _lstm_inputs(data_dir / "lstm", quick)
        case "ode":
            return _ode_inputs(quick)
        case "fft":
            return _fft_inputs(quick)
        case "bruss":
            return _bruss_inputs(quick)
        case "gpt":
            return _gpt_inputs(quick)
    raise KeyError(bench.program)
