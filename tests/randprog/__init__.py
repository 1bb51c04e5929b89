"""Random-program differential testing of enzc's AD engine.

A seeded generator writes differentiable C functions of the kinds users write (loops,
branches, in-place updates, aliasing, structs, heap scratch, helpers, recursion,
function-pointer tables, libm, float/double mixes, gathers, memcpy/memset, ...);
each is built by enzcc at -O0 and -O2 and judged by the dot-product test between
forward and reverse mode and by central finite differences. See `docs/reliability.md`
("Random-program testing") and `python -m randprog --help` (run from `tests/`).

Modules: `features` (what the generator may use, with probabilities), `context` and
`expressions` (values, bounds and safe-domain expressions), `blocks_*` (one statement
kind each), `generator` (seed -> function), `harness` (translation unit and driver),
`build` and `oracle` (compile, run, judge), `campaign` (many programs, attribution,
summary), `reduce` (delta debugging), `regression` (gradcheck programs).
"""
