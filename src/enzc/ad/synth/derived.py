"""What every derived function starts from: a prepared private copy of `f`, its
activity, and a new function holding a clone of that copy.

Reverse mode (`combined`) and forward mode (`forward`) both begin here; they
differ in the parameters that follow each differentiated argument (a shadow
pointer; in forward mode also the tangent of a float) and in what they add to
the clone.
"""

from __future__ import annotations

from enzc.ir.datalayout import DataLayout
from enzc.ir.instructions import CallBase, IndirectBr
from enzc.ir.loops import IrreducibleError
from enzc.ir.module import Function, Module
from enzc.ir.transforms import clone_into
from enzc.ir.values import Value

from enzc.ad.analysis.activity import ArgActivity, analyze
from enzc.ad.analysis.openmp import callee, is_unsupported
from enzc.ad.memory.intfloat import retype_integer_moves
from enzc.ad.memory.posix_memalign import lower_posix_memalign
from enzc.ad.rules.table import has_rule
from enzc.ad.synth.dynamic_stack import lower_dynamic_allocas
from enzc.ad.synth.float_bit_ops import lower_float_bit_ops
from enzc.ad.synth.gradient_utils import GradientUtils
from enzc.ad.synth.known_asm import lower_known_asm
from enzc.ad.synth.pair_results import lower_pair_results
from enzc.ad.synth.parallel_prepare import prepare_parallel
from enzc.ad.synth.preprocess import prepare
from enzc.ad.synth.site_types import SiteContext
from enzc.ad.synth.sort_calls import lower_sorts
from enzc.ad.synth.switch_cases import split_entry_choice
from enzc.ad.synth.vector_reductions import lower_vector_reductions
from enzc.ad.synth.x86_intrinsics import lower_x86_intrinsics
from enzc.ad.typeanalysis.analysis import TypeAnalysis


def start_derived(module: Module, layout: DataLayout, fn: Function, args: tuple[ArgActivity, ...],
                  active_return: bool, g: Function, reverse: bool = True, width: int = 1, *,
                  types: TypeAnalysis, site: SiteContext | None = None
                  ) -> tuple[GradientUtils, dict[Value, list[Value]]]:
    """Fill `g` (declared with `width` parameters after each `has_shadow` argument)
    with a clone of the prepared `fn`; returns its GradientUtils and the map from
    `fn`'s arguments to those extra parameters (the first is the shadow GradientUtils knows). `args` are the classes activity analysis
    sees: a pointer with a shadow is DUP, a float with a derivative OUT. With
    `reverse`, dynamic stack memory outlives the forward pass (`dynamic_stack`). `types`
    is the module's type analysis, shared by every derivative; `site`, when given,
    what the one call site this derivative serves passes (`site_types`)."""
    from enzc.ad.diagnostics import ad_error

    _reject_computed_goto(module, fn)
    _reject_nonlocal_jumps(module, fn)
    try:
        original, _ = prepare(fn)
        split_entry_choice(module, original, types)
        if site is not None:
            site.apply(types, original)
        prepare_parallel(original, module)
        _reject_unsupported_openmp(module, original)
        lower_posix_memalign(original, module)
        lower_sorts(original, module)
        lower_pair_results(module, original)
        lower_known_asm(module, original)
        lower_x86_intrinsics(original)
        lower_vector_reductions(module, original)
        lower_float_bit_ops(module, original)
        stack_arena = lower_dynamic_allocas(original, module, layout) if reverse else None
    except IrreducibleError as e:
        raise ad_error(module, None, fn.name or "?", f"{e}: the reverse pass needs structured loops",
                       "rewrite the loop without goto into its body") from None
    analysis_args = tuple(ArgActivity.OUT if a.has_shadow and not _is_pointer(p) else a
                          for a, p in zip(args, original.args))
    activity = analyze(original, analysis_args, active_return, module, has_rule=has_rule)
    activity = retype_integer_moves(module, layout, original, activity,
                                    lambda: analyze(original, analysis_args, active_return, module, has_rule=has_rule),
                                    types, lambda: lower_float_bit_ops(module, original))
    value_map: dict[Value, Value] = {}
    extra: dict[Value, list[Value]] = {}
    it = iter(g.args)
    for a, cls in zip(original.args, args):
        na = next(it)
        na.name = a.name or f"arg{a.index}"
        value_map[a] = na
        if cls.has_shadow:
            extra[a] = [next(it) for _ in range(width)]
            for k, sa in enumerate(extra[a]):
                sa.name = "d_" + (a.name or f"arg{a.index}") + (f".{k}" if k else "")
    g.blocks = []
    clone_into(original, g, value_map)
    strip_debug_info(g)
    gu = GradientUtils(module, original, fn.name or "?", activity, g, value_map, layout, types)
    gu.shadows.update({a: s[0] for a, s in extra.items() if _is_pointer(a)})
    gu.stack_arena = stack_arena
    return gu, extra


def _reject_computed_goto(module: Module, fn: Function) -> None:
    """A derived function is a copy, but `blockaddress` constants still name the
    user's blocks: an `indirectbr` in the copy would jump into the original."""
    from enzc.ad.diagnostics import ad_error

    for block in fn.blocks:
        if isinstance(block.terminator, IndirectBr):
            raise ad_error(module, block.terminator, fn.name or "?",
                           "cannot differentiate a computed goto (indirectbr)",
                           "use a switch over the targets instead of goto *label_address")


_LONGJMPS = frozenset({"longjmp", "_longjmp", "siglongjmp", "__longjmp_chk", "__libc_longjmp"})


def _reject_nonlocal_jumps(module: Module, fn: Function) -> None:
    """setjmp (any `returns_twice` callee) and longjmp: a jump out of a derived
    function skips its tape's release and the reverse pass; a jump back into one
    reruns part of its forward pass on a tape already written."""
    from enzc.ad.diagnostics import ad_error
    from enzc.ad.rules.library_hints import library_hint

    for inst in fn.instructions():
        if not isinstance(inst, CallBase):
            continue
        callee = inst.called_function
        name = callee.name if isinstance(callee, Function) else None
        twice = "returns_twice" in inst.fn_attrs or (
            isinstance(callee, Function) and callee.has_attr("returns_twice", module))
        if twice or name in _LONGJMPS:
            raise ad_error(module, inst, fn.name or "?",
                           f"cannot differentiate a non-local jump ({name or 'setjmp'})",
                           library_hint("setjmp"))


def _reject_unsupported_openmp(module: Module, fn: Function) -> None:
    """Tasks, `ordered`, `copyprivate`, teams: their data flows through runtime
    structures or orders iterations in a way the derivative does not reverse, and
    any data they touch may be active, so they are an error wherever they appear
    (checked after `prepare_parallel` turned reductions into locks)."""
    from enzc.ad.diagnostics import ad_error

    for inst in fn.instructions():
        if isinstance(inst, CallBase) and is_unsupported(name := callee(inst)):
            raise ad_error(module, inst, fn.name or "?",
                           f"cannot differentiate the OpenMP construct behind '{name}' (tasks, ordered, "
                           "copyprivate, teams and GNU libgomp calls are not supported)",
                           "use '#pragma omp parallel for' (static, dynamic or guided schedule) with "
                           "reduction, critical or atomic; compile with clang's libomp (-fopenmp)")


def _is_pointer(v: Value) -> bool:
    from enzc.ir.types import PointerType

    return isinstance(v.type, PointerType)


def strip_debug_info(fn: Function) -> None:
    """The derivative has no DISubprogram: drop locations and debug records.

    Lifetime markers go too: the reverse pass reads stack slots after the point
    where the original ended their lifetime.
    """
    for inst in list(fn.instructions()):
        callee = inst.called_function if isinstance(inst, CallBase) else None
        if callee is not None and (callee.name or "").startswith("llvm.lifetime."):
            inst.erase()
            continue
        inst.metadata.pop("dbg", None)
        inst.metadata.pop("DIAssignID", None)  # pairs with the original's #dbg_assign records
        for rec in inst.debug_records:
            rec.drop_operands()
        inst.debug_records = []
    for b in fn.blocks:
        b.trailing_debug_records = []


