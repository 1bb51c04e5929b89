"""What a user sees when enzcc cannot differentiate a program: a clang-style
`file:line: error: enzc: ...` on stderr with the function and a hint, exit code 1, no
output file, no Python traceback. Never a program with a silently wrong gradient."""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from gradcheck import COMPILE_TIMEOUT, ENZCC, PROGRAMS


@dataclass(frozen=True)
class Case:
    """A program enzcc must reject, and what the message must mention."""

    source: Path
    must_mention: tuple[str, ...]
    """Words the message must contain besides the location (case-insensitive)."""
    defines: tuple[str, ...] = ()


DIAG = PROGRAMS / "diag"
CASES = {
    "mystery_call": Case(DIAG / "mystery_call.c", ("mystery",)),
    "memcpy_unknown_type": Case(DIAG / "memcpy_unknown_type.c", ("memcpy", "type")),
    # a char buffer is not an empty member (rev2/cxx/empty_member_copy.cpp): may hold a double
    "untyped_bytes_in_copy": Case(DIAG / "untyped_bytes_in_copy.cpp", ("memcpy", "type", "bytes 24 to 32")),
    # with enzc's own shadows turned off (rev2/globals/auto_shadow.c: the default)
    "global_no_shadow": Case(DIAG / "global_no_shadow.c", ("state", "shadow"), ("--enzc-no-auto-shadow",)),
    "callee_writes_global": Case(DIAG / "callee_writes_global.c", ("saved", "shadow"), ("--enzc-no-auto-shadow",)),
    "fnptr_external": Case(DIAG / "fnptr_external.c", ("indirect", "logb")),
    "openmp_task": Case(DIAG / "openmp_task.c", ("__kmpc_omp_task", "OpenMP", "tasks"), ("-fopenmp",)),
    "openmp_max_reduction": Case(DIAG / "openmp_max_reduction.c", ("order", "lock", "max"), ("-fopenmp",)),
    "fnptr_external_forward": Case(DIAG / "fnptr_external.c", ("indirect", "logb"), ("-DFORWARD",)),
    "lfind_comparator": Case(DIAG / "lfind_comparator.c", ("lfind", "comparator")),
    "record_copy_walked_unbounded": Case(DIAG / "record_copy_walked_unbounded.c", ("memcpy", "conflicting"),
                                         ("-fno-strict-aliasing",)),
    "scratch_pointer_global": Case(DIAG / "scratch_pointer_global.c", ("'work'", "__enzyme_shadow_global_work")),
    "errest_unknown_call": Case(DIAG / "errest_unknown_call.c", ("opaque_model", "error estimate")),
    "errest_custom_forward": Case(DIAG / "errest_custom_forward.c", ("smooth", "user derivative", "not error estimates")),
    "errest_width": Case(DIAG / "errest_width.c", ("enzyme_width",)),
    "vector_reverse_custom": Case(DIAG / "vector_reverse_custom.c", ("enzyme_width", "user derivative", "cube")),
    "split_width_result_adjoints": Case(DIAG / "split_width_result_adjoints.c", ("enzyme_width", "one per lane")),
    "dupv_not_pointer": Case(DIAG / "dupv_not_pointer.c", ("enzyme_dupv", "not a pointer")),
    "vector_reverse_global": Case(DIAG / "vector_reverse_global.c", ("enzyme_width", "state", "one shadow")),
    "fwdsplit_both_tapes": Case(DIAG / "fwdsplit_both_tapes.c", ("__enzyme_fwdsplit", "__enzyme_reverse", "tape")),
    "fwdsplit_atomic": Case(DIAG / "fwdsplit_atomic.c", ("__enzyme_fwdsplit", "atomicrmw", "count_and_square")),
    "fwdsplit_width": Case(DIAG / "fwdsplit_width.c", ("__enzyme_fwdsplit", "enzyme_width", "tape")),
    "fwdsplit_memory": Case(DIAG / "fwdsplit_memory.c", ("__enzyme_fwdsplit", "scale_in_place", "memory")),
    "enzyme_plugin_attribute": Case(DIAG / "enzyme_plugin_attribute.c", ("'enzyme_inactive_noblock'", "not supported")),
    "allocation_like_bad_index": Case(DIAG / "allocation_like_bad_index.c", ("__enzyme_allocation_like", "index")),
    "float_bits_arithmetic": Case(DIAG / "float_bits_arithmetic.c", ("bits", "double", "i64")),
    # a word copy of doubles alone differentiates (rev2/memory/word_copy_helper_doubles.c)
    "word_copy_helper_two_types": Case(DIAG / "word_copy_helper_two_types.c",
                                       ("i64", "floating-point", "integers alike")),
    "word_copy_mixed_record": Case(DIAG / "word_copy_mixed_record.c", ("i64", "floating-point", "integers alike")),
    "word_copy_mixed_record_no_strict_aliasing": Case(DIAG / "word_copy_mixed_record.c",
                                                      ("i64", "floating-point", "integers alike"),
                                                      ("-fno-strict-aliasing",)),
    "const_pointer_in_dup_struct": Case(DIAG / "const_pointer_in_dup_struct.c", ("without a shadow", "enzyme_dup")),
    "allocated_tape_too_small": Case(DIAG / "allocated_tape_too_small.c", ("tape", "4 bytes", "8 bytes")),
    "struct_result_reverse": Case(DIAG / "struct_result_reverse.c", ("triple", "sret", "enzyme_dup")),
    "computed_goto": Case(DIAG / "computed_goto.c", ("computed goto", "switch")),
    "const_pointer_select": Case(DIAG / "const_pointer_select.c", ("argument 1", "enzyme_dup", "separate")),
    "caught_exception": Case(DIAG / "caught_exception.cpp", ("exception", "caught", "try/catch")),
    "two_outs_scalar_return": Case(DIAG / "two_outs_scalar_return.c", ("declared to return double", "2 values",
                                                                        "struct")),
    "setjmp_longjmp": Case(DIAG / "setjmp_longjmp.c", ("non-local jump", "setjmp")),
    "inline_asm": Case(DIAG / "inline_asm.c", ("inline assembly", "custom derivative")),
    "inline_asm_forward": Case(DIAG / "inline_asm.c", ("inline assembly",), ("-DFORWARD",)),
    "runtime_marker": Case(DIAG / "runtime_marker.c", ("chosen at run time", "enzyme_const", "enzyme_out")),
    "autodiff_through_pointer": Case(DIAG / "autodiff_through_pointer.c", ("__enzyme_autodiff", "direct call")),
    "autodiff_in_table": Case(DIAG / "autodiff_in_table.c", ("grad_table", "direct call")),
    "batch_missing_lane": Case(DIAG / "batch_missing_lane.c", ("__enzyme_batch", "missing")),
    "todense_escape": Case(DIAG / "todense_escape.c", ("__enzyme_todense", "printf", "scaled_load")),
    # LAPACK is out of scope of the BLAS rules (issue 13): an opaque external call
    "lapack_call": Case(DIAG / "lapack_call.c", ("dpotrf_", "LAPACK", "custom derivative")),
    "blas_without_rule": Case(DIAG / "blas_without_rule.c", ("cblas_dtbmv", "gemm", "custom derivative")),
    "cublas_triangular": Case(DIAG / "cublas_triangular.c", ("cublasDtrsm_v2", "cuBLAS", "trmm")),
    "blas_rule_callable_only": Case(DIAG / "blas_rule_callable_only.c", ("cblas_dsyr2", "trsm", "custom derivative")),
    "lascl_active_factor": Case(DIAG / "lascl_active_factor.c", ("lascl", "'cto'", "constant")),
    "const_map_reloaded": Case(DIAG / "const_map_reloaded.cpp", ("without a shadow", "enzyme_dup"),
                               ("-I/usr/include/eigen3",)),
    "aligned_realloc_compare": Case(DIAG / "aligned_realloc_compare.c", ("aligned by integer arithmetic",
                                                                          "compared", "aligned_alloc")),
    "type_erased_manager": Case(DIAG / "type_erased_manager.c", ("cannot tell whether", "floating-point")),
    "type_erased_manager_if": Case(DIAG / "type_erased_manager.c", ("cannot tell whether", "floating-point"),
                                   ("-DIF_ELSE",)),
    "type_erased_manager_cmd": Case(DIAG / "type_erased_manager.c", ("cannot tell whether", "floating-point"),
                                    ("-DCOMMAND_RECORD",)),
    # the choice after a write (a call counter) or behind a null check: a silent zero before
    "type_erased_manager_counted": Case(DIAG / "type_erased_manager.c", ("cannot tell whether", "floating-point"),
                                        ("-DCOUNTED",)),
    "type_erased_manager_checked_if": Case(DIAG / "type_erased_manager.c", ("cannot tell whether", "floating-point"),
                                           ("-DCHECKED", "-DIF_ELSE")),
    "type_erased_manager_checked_cmd": Case(DIAG / "type_erased_manager.c",
                                            ("cannot tell whether", "floating-point"),
                                            ("-DCHECKED", "-DCOMMAND_RECORD")),
    "type_erased_manager_counted_cmd": Case(DIAG / "type_erased_manager.c",
                                            ("cannot tell whether", "floating-point"),
                                            ("-DCOUNTED", "-DCOMMAND_RECORD")),
    "generic_vector_not_inlined": Case(PROGRAMS / "rev2" / "memory" / "generic_vector_realloc.c",
                                       ("cannot deduce",), ("-DNOT_INLINED",)),
    "std_variant_vector": Case(DIAG / "std_variant_vector.cpp", ("memcpy", "conflicting types")),
    "std_function_assign": Case(DIAG / "std_function_assign.cpp", ("memcpy", "cannot deduce the type")),
    # the inactive_global gradient program, minus its __enzyme_inactive_global mark
    "inactive_global_unmarked": Case(PROGRAMS / "rev2" / "globals" / "inactive_global.c",
                                     ("last_input", "shadow"), ("-DNO_INACTIVE_MARK", "--enzc-no-auto-shadow")),
}

# Case name (or "name[-g]" / "name[no -g]") -> why it fails today. Strict.
XFAIL: dict[str, str] = {}


def diag_line(source: Path) -> int | None:
    """The line marked /* DIAG-LINE */, where the error must point with -g."""
    for number, text in enumerate(source.read_text().splitlines(), start=1):
        if "DIAG-LINE" in text:
            return number
    return None


def compile_failing(case: Case, debug: bool, out: Path) -> subprocess.CompletedProcess[str]:
    cmd = [str(ENZCC), "-O2", *(["-g"] if debug else []), *case.defines, str(case.source),
           "-lm", "-o", str(out)]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=COMPILE_TIMEOUT)


def _params() -> list:
    out = []
    for name, case in CASES.items():
        for debug in (True, False):
            ident = f"{name}[{'-g' if debug else 'no -g'}]"
            reason = XFAIL.get(ident) or XFAIL.get(name)
            marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
            out.append(pytest.param(case, debug, id=ident, marks=marks))
    return out


@pytest.mark.parametrize(("case", "debug"), _params())
def test_rejected_with_clear_error(case: Case, debug: bool, tmp_path: Path, drivers) -> None:
    out = tmp_path / "prog"
    r = compile_failing(case, debug, out)
    err = r.stderr
    assert r.returncode == 1, f"expected exit code 1, got {r.returncode}:\n{err}"
    assert "Traceback" not in err, err
    assert not out.exists(), "a failed build left its output file behind"
    assert "error: enzc:" in err, err
    for word in case.must_mention:
        assert word.lower() in err.lower(), f"message does not mention {word!r}:\n{err}"
    assert re.search(r"(?i)hint|note:", err), f"no hint in:\n{err}"
    line = diag_line(case.source)
    if debug and line is not None:
        where = re.escape(case.source.name) + rf":{line}:"
        assert re.search(where, err), f"no location {case.source.name}:{line}: in:\n{err}"


def test_every_case_marks_its_line() -> None:
    for case in CASES.values():
        assert diag_line(case.source) is not None, case.source


def test_std_function_without_tbaa_is_rejected(tmp_path: Path, drivers) -> None:
    """Without TBAA only the invoker (reached through a function pointer) reads a
    lambda's captured doubles: the manager's clone of them was taken for a pointer
    move (its other case stores a pointer there), a silently wrong gradient of the
    captured scalars (ClangEnzyme-19 too). Now the clone is untyped: an error in the
    manager, which no user line calls directly."""
    case = Case(PROGRAMS / "rev2" / "cxx" / "std_function_captures.cpp", ("memcpy", "cannot deduce"),
                ("-fno-strict-aliasing",))
    out = tmp_path / "prog"
    r = compile_failing(case, False, out)
    assert r.returncode == 1 and not out.exists(), r.stderr
    assert "error: enzc: cannot deduce the type of the memory copied by this memcpy" in r.stderr, r.stderr
    assert "_M_manager" in r.stderr, r.stderr
