"""Synthesis of derived functions (Enzyme's GradientUtils, AdjointGenerator, CacheUtility,
EnzymeLogic).

    derivatives     the derived functions of a module, memoized (`DerivativeCache`)
    signature       what a derived function is: signature, IR type, call records
    derived         the start of every derivative: private copy, activity, clone
    preprocess      loop-simplify and LCSSA on the private copy
    dynamic_stack   dynamic allocas of the private copy become arena blocks
    gradient_utils  per-derivative state: value maps, shadows, adjoints, lookup
    combined        the combined forward+reverse `diffe_<f>` (and what split mode cuts)
    reverse         the reverse-pass visitor, one handler per opcode
    forward         forward mode `fwddiffe_<f>`
    call_derivatives  active calls to defined functions (augmented/reverse calls)
    split_mode      `augmented_<f>` / `reverse_<f>` with a tape
    recompute       cache or recompute: placeholders, then a minimum cut
    cache, cache_runtime, cache_report, tape_stats   caches of loop values
    undo_stores     undo and replay of once-executed stores
"""

from enzc.ad.synth.combined import Derivative
from enzc.ad.synth.derivatives import DerivativeCache
from enzc.ad.synth.signature import Signature

__all__ = ["Derivative", "DerivativeCache", "Signature"]
