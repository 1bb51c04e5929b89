"""What the engine knows before it writes code: facts about the function being
differentiated, computed on its private copy, and the interface of the derivative
being built that layers above code against.

    activity        which values and instructions carry derivatives (text form too)
    calls           what is known about callees without their bodies
    allocations     allocation functions, where pointers come from, escape
    annotations     enzyme_* annotations on functions, as the engine reads them
    globals_shadow  which globals have shadows or are inactive
    memory_facts    which memory may change before the reverse pass reads it
    tripcount, tripcount_exhaustive   loop iteration counts (exact or bounds) as IR
    mincut          minimum cut (which forward values to cache)
    uses            "does anything computed from this value reach that use"
    gradient_state  the protocol rule and memory code uses to emit into a derivative
"""

from enzc.ad.analysis.activity import Activity, ArgActivity, analyze, parse_activity_text
from enzc.ad.analysis.calls import CallKind, RuleLookup, classify
from enzc.ad.analysis.gradient_state import GradientState
from enzc.ad.analysis.memory_facts import MemoryFacts
from enzc.ad.analysis.tripcount import TripCount, trip_count

__all__ = ["Activity", "ArgActivity", "CallKind", "GradientState", "MemoryFacts", "RuleLookup", "TripCount",
           "analyze", "classify", "parse_activity_text", "trip_count"]
