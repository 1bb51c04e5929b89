"""Type analysis: a type tree (byte offset -> Integer / Float / Pointer / ...) for every
value, interprocedural and context sensitive, so the engine can pick adjoints where
the IR type does not say (an `i64` that moves a double, a memcpy of untyped bytes).

    typetree     type trees, their join and text form (`{[-1]:Float@double}`)
    tbaa         what clang's `!tbaa` tags say about types
    offsets      seeds from IR types, GEP offsets, pointer provenance
    state        one function's fixed point in one calling context
    instruction_rules, call_rules   the propagation rules (library functions as data)
    callers      argument facts all direct call sites of a function agree on
    analysis     the interprocedural driver, one per module (`TypeAnalysis`)
    results      the queries the engine asks (`TypeResults`), the text form
"""

from enzc.ad.typeanalysis.analysis import TypeAnalysis, analyze_function
from enzc.ad.typeanalysis.errors import TypeAnalysisError, TypeConflictError, UnknownTypeError
from enzc.ad.typeanalysis.results import CopyLayout, Segment, TypeResults, print_type_analysis
from enzc.ad.typeanalysis.typetree import BaseType, Kind, TypeTree, parse_type_tree

__all__ = ["BaseType", "CopyLayout", "Kind", "Segment", "TypeAnalysis", "TypeAnalysisError", "TypeConflictError",
           "TypeResults", "TypeTree", "UnknownTypeError", "analyze_function", "parse_type_tree",
           "print_type_analysis"]
