"""Issue 5 acceptance: reverse mode across calls (noinline helpers, recursion,
function pointers), heap memory, globals, custom derivatives, libraries and C++,
each program built by enzcc/enzc++ at -O0 and -O2."""

from __future__ import annotations

from pathlib import Path

import pytest

from gradcheck import Program, discover, params, run_and_check

CONFIGS = ["-O0", "-O2"]
PROGRAMS = discover("rev2")

# Program name (or "name[config]") -> why it fails today. Strict: remove an entry as
# soon as its program passes.
XFAIL: dict[str, str] = {
    "calls/byval_struct_arg": "enzcc internal error: ValueError: no callback for grammar rule 'callee'",
    "calls/inplace_update": "enzcc internal error: ValueError: no callback for grammar rule 'callee'",
    "calls/mixed_activity_calls": "enzcc internal error: ValueError: no callback for grammar rule 'callee'",
    "calls/noinline_chain": "AD: call to non-inlined function 'b2' is not supported yet",
    "calls/noinline_loop": "AD: call to non-inlined function 'bump' is not supported yet",
    "calls/noinline_struct_return": "AD: call to non-inlined function 'cross' is not supported yet",
    "calls/write_through_ptr_loop": "AD: WRONG GRADIENT, all zeros: noinline calls writing through pointer arguments are treated as inactive (must be fixed or rejected)",
    "custom/add2_metadata": "AD: !enzyme_augment/!enzyme_gradient not honoured yet ('cannot differentiate call to external function add2')",
    "custom/function_like": "enzcc internal error: ValueError: no callback for grammar rule 'callee'",
    "custom/inactivefn": "enzcc internal error: ValueError: no callback for grammar rule 'callee'",
    "custom/register_scalar": "enzcc internal error: ValueError: no callback for grammar rule 'callee'",
    "custom/register_tape": "enzcc internal error: ValueError: no callback for grammar rule 'callee'",
    "cxx/new_delete": "AD: an active value is written to memory the AD cannot shadow (heap or unknown memory, not supported yet)",
    "cxx/templates_class_vector": "AD: active memory is copied into memory the AD cannot shadow",
    "cxx/vector_push_back": "AD: an active value is written to memory the AD cannot shadow (heap or unknown memory, not supported yet)",
    "cxx/virtual_methods": "AD: cannot differentiate an indirect call that may be active",
    "fnptr/euler": "AD: call to non-inlined function 'euler' is not supported yet",
    "fnptr/rk4": "AD: call to non-inlined function 'rk4' is not supported yet",
    "fnptr/struct_of_fnptrs": "AD: cannot differentiate an indirect call that may be active",
    "fnptr/table": "AD: cannot differentiate an indirect call that may be active",
    "globals/global_shadow": "AD: !enzyme_shadow on the global is not honoured yet ('state ... has no shadow')",
    "globals/inactive_global": "AD: __enzyme_inactive_global_* not honoured yet ('last_input ... has no shadow')",
    "heap/calloc_realloc": "enzcc internal error: AttributeError: 'tuple' object has no attribute 'type'",
    "heap/list_built_inside": "AD: an active value is written to memory the AD cannot shadow (heap or unknown memory, not supported yet)",
    "heap/malloc_free": "AD: an active value is written to memory the AD cannot shadow (heap or unknown memory, not supported yet)",
    "heap/memset_memmove": "enzcc internal error: AttributeError: 'tuple' object has no attribute 'type'",
    "heap/sumlist[-O0]": "enzcc internal error: AttributeError: 'tuple' object has no attribute 'type'",
    "kernels/cholesky_inplace": "AD: call to non-inlined function 'cholesky' is not supported yet",
    "kernels/heat_stencil": "AD: active memory is copied into memory the AD cannot shadow",
    "kernels/logsumexp_gmm": "AD: call to non-inlined function 'logsumexp' is not supported yet",
    "kernels/lstm_cell": "AD: an active value is written to memory the AD cannot shadow (heap or unknown memory, not supported yet)",
    "kernels/matmul_noinline": "AD: call to non-inlined function 'matmul' is not supported yet",
    "kernels/sorting_network": "AD: call to non-inlined function 'cswap' is not supported yet",
    "lib/staticlib": "AD: cannot differentiate 'spring_energy': its body is not available",
    "recursion/divide_conquer": "AD: call to non-inlined function 'dc' is not supported yet",
    "recursion/mutual_recursion": "AD: call to non-inlined function 'odd_step' is not supported yet",
    "recursion/recursive_pow": "AD: call to non-inlined function 'rpow' is not supported yet",
    "recursion/tree_sum": "AD: call to non-inlined function 'tree_sum' is not supported yet",
}


def test_enough_programs() -> None:
    assert len(PROGRAMS) >= 44


def test_xfail_table_names_programs() -> None:
    """A stale entry (renamed program or config) would silently stop guarding anything."""
    known = {p.name for p in PROGRAMS} | {f"{p.name}[{c}]" for p in PROGRAMS for c in CONFIGS}
    assert set(XFAIL) <= known, set(XFAIL) - known


@pytest.mark.parametrize(("prog", "config"), params(PROGRAMS, CONFIGS, XFAIL))
def test_gradient(prog: Program, config: str, tmp_path: Path, drivers) -> None:
    run_and_check(prog, config, tmp_path)
