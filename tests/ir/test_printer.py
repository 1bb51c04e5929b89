"""Printer: what transforms rely on — renumbering after edits, unique names, new
metadata and attribute groups, and readable `str()` of instructions for diagnostics."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from enzc.ir import (
    DOUBLE, I32, BinaryOp, Call, ConstantFP, ConstantInt, FunctionType, MDString, MDTuple, MDRef, Ret,
    parse_module, print_function, print_module,
)
from enzc.ir.module import BasicBlock

LLVM_AS = shutil.which("llvm-as-22")


def assemble(text: str) -> None:
    if LLVM_AS is None:
        pytest.skip("llvm-as-22 not installed")
    proc = subprocess.run([LLVM_AS, "-", "-o", "/dev/null"], input=text, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr


SQUARE = """define double @sq(double %0) !dbg !3 {
  %2 = fmul double %0, %0
  br label %3

3:
  %4 = fadd double %2, 1.000000e+00, !dbg !5
  ret double %4
}

!llvm.dbg.cu = !{!1}
!llvm.module.flags = !{!0}

!0 = !{i32 2, !"Debug Info Version", i32 3}
!1 = distinct !DICompileUnit(language: DW_LANG_C11, file: !2, emissionKind: FullDebug)
!2 = !DIFile(filename: "sq.c", directory: "/src")
!3 = distinct !DISubprogram(name: "sq", scope: !2, file: !2, line: 1, type: !4, spFlags: DISPFlagDefinition, unit: !1)
!4 = !DISubroutineType(types: !{})
!5 = !DILocation(line: 2, column: 12, scope: !3)
"""


def test_inserted_unnamed_instruction_renumbers_the_rest() -> None:
    m = parse_module(SQUARE)
    fn = m.functions["sq"]
    mul = fn.entry.instructions[0]
    extra = BinaryOp("fsub", mul, ConstantFP(DOUBLE, 0.5))
    extra.insert_after(mul)
    add = fn.blocks[1].instructions[0]
    add.set_operand(0, extra)
    out = print_function(fn)
    assert out == (
        "define double @sq(double %0) !dbg !3 {\n"
        "  %2 = fmul double %0, %0\n"
        "  %3 = fsub double %2, 0x3FE0000000000000\n"
        "  br label %4\n"
        "\n"
        "4:\n"
        "  %5 = fadd double %3, 1.000000e+00, !dbg !5\n"
        "  ret double %5\n"
        "}\n"
    )
    assemble(print_module(m))


def test_colliding_names_get_suffixes() -> None:
    m = parse_module("define i32 @f(i32 %x) {\n  %y = add i32 %x, 1\n  %z = add i32 %y, 2\n  ret i32 %z\n}\n", lazy=False)
    fn = m.functions["f"]
    fn.entry.instructions[1].name = "y"
    fn.entry.instructions[0].name = "x"
    out = print_function(fn)
    assert "  %x.1 = add i32 %x, 1\n  %y = add i32 %x.1, 2\n  ret i32 %y\n" in out
    assemble(print_module(m))


def test_new_metadata_and_attribute_group_print() -> None:
    m = parse_module(SQUARE)
    fn = m.functions["sq"]
    node_id = m.add_metadata(MDTuple([MDString(b"enzyme"), MDRef("0")]))
    fn.entry.instructions[0].metadata["enzc.note"] = MDRef(node_id)
    m.attribute_groups["1"] = ("nounwind", '"enzyme_math"="sq"')
    fn.fn_attrs = ("#1",)
    out = print_module(m)
    assert f'!{node_id} = !{{!"enzyme", !0}}' in out
    assert f"%2 = fmul double %0, %0, !enzc.note !{node_id}" in out
    assert 'attributes #1 = { nounwind "enzyme_math"="sq" }' in out
    assert "define double @sq(double %0) #1 !dbg !3 {" in out
    assemble(out)


def test_instruction_and_block_str_for_diagnostics() -> None:
    m = parse_module(SQUARE)
    fn = m.functions["sq"]
    add = fn.blocks[1].instructions[0]
    assert str(add) == "%4 = fadd double %2, 1.000000e+00, !dbg !5"
    assert str(fn.blocks[1]) == "3:\n  %4 = fadd double %2, 1.000000e+00, !dbg !5\n  ret double %4\n"
    detached = BinaryOp("add", ConstantInt(I32, 1), ConstantInt(I32, 2), name="t")
    assert str(detached) == "%t = add i32 1, 2"


def test_function_built_from_objects() -> None:
    m = parse_module("declare double @sin(double)\n")
    fn = m.add_function("twice_sin", FunctionType(DOUBLE, (DOUBLE,)))
    fn.args[0].name = "x"
    assert print_function(fn) == "declare double @twice_sin(double)\n"
    entry = fn.append_block("entry")
    call = entry.append(Call(m.functions["sin"].function_type, m.functions["sin"], [fn.args[0]], tail="tail"))
    twice = entry.append(BinaryOp("fadd", call, call, ("fast",)))
    entry.append(Ret(twice))
    assert isinstance(entry, BasicBlock)
    assert print_function(fn) == (
        "define double @twice_sin(double %x) {\n"
        "entry:\n"
        "  %0 = tail call double @sin(double %x)\n"
        "  %1 = fadd fast double %0, %0\n"
        "  ret double %1\n"
        "}\n"
    )
    assemble(print_module(m))


def test_printing_a_parsed_module_twice_is_stable() -> None:
    m = parse_module(SQUARE, lazy=False)
    once = print_module(m)
    assert print_module(parse_module(once, lazy=False)) == once


VALUES = [1.0, -2.5, 0.1, 0.0, -0.0, 1e-310, 3e300, float("inf")]


@pytest.mark.skipif(shutil.which("clang-22") is None, reason="needs clang-22")
def test_new_long_double_and_quad_constants_are_spelled_as_clang_does(tmp_path) -> None:
    """Constants the AD makes (0.0, 1.0, rule numbers) for `long double` (x86_fp80)
    and `__float128` (fp128): the same bits as clang's for the same double value."""
    from enzc.ir.types import FloatType
    from enzc.ir.values import ConstantFP

    lines = [f"long double l{k} = (double){v!r}; __float128 q{k} = (double){v!r};"
             for k, v in enumerate(VALUES)]
    src = tmp_path / "c.c"
    src.write_text("\n".join(lines).replace("inf", "__builtin_inf()") + "\n")
    ir = subprocess.run(["clang-22", "-S", "-emit-llvm", "-o", "-", str(src)], capture_output=True,
                        text=True, check=True).stdout
    for k, v in enumerate(VALUES):
        for name, kind in ((f"l{k}", "x86_fp80"), (f"q{k}", "fp128")):
            line = next(line for line in ir.splitlines() if line.startswith(f"@{name} "))
            spelled = line.split(f"{kind} ", 1)[1].split(",")[0]
            assert ConstantFP(FloatType(kind), v).ref() == spelled, (name, v)


@pytest.mark.parametrize("value", VALUES)
def test_new_bfloat_constants_are_accepted_by_llvm(value: float) -> None:
    import llvmlite.binding as llvm

    from enzc.ir.types import FloatType
    from enzc.ir.values import ConstantFP

    spelled = ConstantFP(FloatType("bfloat"), value).ref()
    llvm.parse_assembly(f"@g = global bfloat {spelled}\n")
