"""What the generator may put into a random function, and how often.

Every feature is on by default: a function draws each one with its probability
(`FEATURES`), so a campaign mixes them in every combination while one seed always
gives the same program. `--only`/`--without` (see `select`) narrow the set for
triage; the reducer never changes it (it shrinks the text instead).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Feature:
    """One kind of code the generator can write."""

    name: str
    probability: float
    """Chance that a function uses this feature (drawn once per function)."""
    what: str
    """One line for the docs and --list-features."""


FEATURES: tuple[Feature, ...] = (
    Feature("loop_const", 0.6, "for loops with constant trip counts, some nested"),
    Feature("loop_data", 0.45, "trip counts from the int argument n or an int table; "
            "while/do loops; early break"),
    Feature("branch", 0.55, "if/else, else-if chains, ?:, switch; conditions on inputs "
            "(kept >= 0.3 from the threshold) or computed values"),
    Feature("overwrite", 0.45, "in-place updates of inputs and local arrays, values "
            "overwritten by constants, scalars reassigned"),
    Feature("alias", 0.35, "two pointers into one array (overlapping windows), also "
            "passed to a helper"),
    Feature("struct", 0.4, "structs of doubles and ints: copies, swaps, arrays of them, "
            "by value to and from helpers, by pointer"),
    Feature("malloc", 0.35, "malloc/calloc/realloc'd scratch arrays, freed"),
    Feature("helper", 0.55, "helpers: static, static inline, noinline, plain; scalar, "
            "reduction, in-place and out-parameter kinds"),
    Feature("recursion", 0.25, "bounded recursion (linear and on arrays)"),
    Feature("fnptr", 0.35, "function pointers: const global tables indexed by an int, a "
            "pointer chosen by data, local arrays of structs holding them, an apply helper; "
            "now and then a libm function itself"),
    Feature("libm", 0.9, "libm in safe domains: sin cos tan exp exp2 expm1 log log1p "
            "log2 log10 sqrt cbrt pow hypot atan atan2 asin acos sinh cosh tanh asinh "
            "acosh atanh erf erfc fma"),
    Feature("float", 0.3, "float locals and arrays, float libm, casts between float and "
            "double"),
    Feature("gather", 0.35, "gather and scatter through index arrays (constant tables "
            "and the int* argument)"),
    Feature("const_table", 0.4, "constant global tables of doubles read in active code"),
    Feature("memops", 0.35, "memcpy, memmove and memset of doubles (whole arrays, "
            "shifted windows, one element, from a constant table)"),
    Feature("ptr_select", 0.3, "pointers chosen by a condition (two active arrays, or a "
            "constant table and an active array)"),
    Feature("record", 0.3, "structs holding fixed arrays (1-D, or 2-D read by a flat index) "
            "beside an int, a pointer and a double: copied by assignment, memcpy, a void * copy helper "
            "the function's records share, into the heap "
            "and into arrays of them, read at run-time indices, passed to helpers"),
    Feature("kinks", 0.15, "fabs, fmax, fmin (the checker resamples the point when FD "
            "straddles a kink)"),
    Feature("dispatch", 0.2, "a helper switching on an int operation that copies, stores an "
            "address into, or transforms its void * destination (a type-erasing manager's shape), "
            "now and then after counting its calls or a null check, or called through a pointer"),
    Feature("sort", 0.15, "qsort of a local array of doubles (ascending or descending), elements read "
            "back by position, now and then a bsearch for one of its values"),
    Feature("bits", 0.12, "doubles as integer bits: |x| or -x on the uint64_t bits of one element, "
            "arrays copied (and negated) by SSE2 integer loads and stores"),
)

BY_NAME: dict[str, Feature] = {f.name: f for f in FEATURES}


def select(only: list[str] | None = None, without: list[str] | None = None) -> dict[str, float]:
    """Feature name -> probability, restricted by --only (probability 1) and --without."""
    for name in (only or []) + (without or []):
        if name not in BY_NAME:
            raise ValueError(f"unknown feature {name!r}; known: {', '.join(BY_NAME)}")
    if only:
        return {f.name: (1.0 if f.name in only else 0.0) for f in FEATURES}
    return {f.name: (0.0 if f.name in (without or []) else f.probability) for f in FEATURES}
