"""Parser and printer: text in, text out on hand-written modules in llvm-dis's layout.

The big module below uses every instruction, constant form and module-level entity
clang emits; printing its parse must give back exactly the same text, and LLVM must
accept it. Smaller tests pin down numbering, forward references and lazy bodies.
"""

from __future__ import annotations

import shutil
import subprocess

import pytest

from enzc.ir import (
    BinaryOp, Call, Compare, ConstantExpr, ConstantInt, DebugRecord, DIArgList, Function, GlobalVariable,
    Invoke, IRParseError, Load, MDRef, MDSpecialized, Phi, Store, function_location, parse_bitcode,
    parse_file, parse_module, print_module, source_location, PointerType, DOUBLE,
)

LLVM_AS = shutil.which("llvm-as-22")


def assemble(text: str) -> None:
    """Assert that llvm-as-22 accepts `text`."""
    if LLVM_AS is None:
        pytest.skip("llvm-as-22 not installed")
    proc = subprocess.run([LLVM_AS, "-", "-o", "/dev/null"], input=text, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr


EVERYTHING = r"""source_filename = "all.c"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

module asm "nop"

%struct.S = type { i32, ptr, [4 x i8] }
%struct.P = type <{ i8, i32 }>
%struct.Opaque = type opaque
%struct.List = type { ptr, %struct.S }
%"class.std::vector" = type { ptr, ptr }

$cd = comdat any

@g = dso_local global i32 42, align 4
@.str = private unnamed_addr constant [6 x i8] c"hi\0A\22\\\00", align 1
@arr = internal global [2 x %struct.S] [%struct.S { i32 1, ptr @g, [4 x i8] zeroinitializer }, %struct.S zeroinitializer], align 16
@p = global %struct.P <{ i8 1, i32 2 }>, section "data", align 1
@tl = thread_local(initialexec) global i32 0, align 4
@ext = external global i32
@cd = linkonce_odr global i32 0, comdat, align 4
@gep = global ptr getelementptr inbounds (i8, ptr @g, i64 2)
@pi = global i64 ptrtoint (ptr @g to i64)
@vec = global <4 x float> <float 1.000000e+00, float 2.500000e+00, float 0x3FB99999A0000000, float -0.000000e+00>
@spl = global <2 x i64> splat (i64 7)
@0 = private constant i8 3
@"quoted name" = global double 0x7FF8000000000000
@ba = global ptr blockaddress(@f_ib, %l2)
@x80 = global x86_fp80 0xK3FFF8000000000000000
@h = global half 0xH3C00

@al = alias i32, ptr @g

@if = ifunc void (), ptr @resolver

define dso_local noundef i32 @arith(i32 noundef %a, i32 %b, double %x, <4 x i32> %v) #0 {
entry:
  %0 = add nuw nsw i32 %a, %b
  %1 = sub i32 %0, -1
  %2 = shl nuw i32 %1, 3
  %3 = or disjoint i32 %2, 1
  %4 = udiv exact i32 %3, 4
  %5 = fadd fast double %x, 1.000000e+00
  %6 = fmul nnan ninf double %5, %x
  %7 = fneg double %6
  %8 = zext nneg i32 %4 to i64
  %9 = trunc nuw nsw i64 %8 to i16
  %10 = sitofp i32 %a to float
  %11 = fptosi double %7 to i32
  %12 = icmp samesign ult i32 %a, %b
  %13 = fcmp olt double %x, 0.000000e+00
  %14 = select i1 %12, i32 %a, i32 %b
  %15 = select nnan i1 %13, double %x, double %7
  %16 = freeze i32 %14
  %17 = extractelement <4 x i32> %v, i64 0
  %18 = insertelement <4 x i32> %v, i32 %17, i64 1
  %19 = shufflevector <4 x i32> %18, <4 x i32> poison, <4 x i32> <i32 3, i32 poison, i32 1, i32 0>
  %20 = icmp eq <4 x i32> %19, zeroinitializer
  %21 = insertvalue { i32, double } poison, i32 %16, 0
  %22 = extractvalue { i32, double } %21, 0
  %23 = add i32 %22, %11
  ret i32 %23
}

define internal void @mem(ptr %p, i64 %n) {
  %a = alloca i32, align 4
  %b = alloca i8, i64 %n, align 16
  %c = alloca %struct.S, align 8, addrspace(5)
  store i32 1, ptr %a, align 4
  store volatile i32 2, ptr %a, align 4
  %1 = load i32, ptr %a, align 4
  %2 = load atomic i32, ptr %p seq_cst, align 4
  store atomic i32 %1, ptr %p syncscope("singlethread") release, align 4
  %3 = atomicrmw add ptr %p, i32 1 seq_cst, align 4
  %4 = atomicrmw volatile xchg ptr %p, i32 %2 syncscope("agent") monotonic, align 4
  %5 = cmpxchg weak ptr %p, i32 0, i32 1 acq_rel monotonic, align 4
  %6 = extractvalue { i32, i1 } %5, 1
  fence seq_cst
  fence syncscope("singlethread") acquire
  %7 = getelementptr inbounds nuw %struct.S, ptr %p, i64 1, i32 2, i64 %n
  %8 = getelementptr i8, ptr %7, <2 x i64> <i64 1, i64 2>
  %9 = getelementptr inbounds %struct.List, ptr %b, i64 0, i32 1
  ret void
}

define i32 @cfg(i32 %n, ptr %ap) personality ptr @__gxx_personality_v0 {
entry:
  br label %loop

loop:
  %i = phi i32 [ 0, %entry ], [ %i.next, %loop ]
  %i.next = add i32 %i, 1
  %c = icmp slt i32 %i.next, %n
  br i1 %c, label %loop, label %sw

sw:
  switch i32 %i, label %d [
    i32 0, label %one
    i32 5, label %two
  ]

one:
  %r = invoke i32 @thrower(i32 %n) #3
          to label %two unwind label %lp

two:
  %v = va_arg ptr %ap, i32
  ret i32 %v

lp:
  %l = landingpad { ptr, i32 }
          cleanup
          catch ptr @g
          filter [1 x ptr] [ptr @g]
  resume { ptr, i32 } %l

d:
  unreachable
}

define void @f_ib(ptr %t) {
  indirectbr ptr %t, [label %l1, label %l2]

l1:
  ret void

l2:
  ret void
}

define void @calls(ptr %fp, double %d) {
  %1 = tail call fast double @llvm.sqrt.f64(double %d)
  %2 = call i32 (ptr, ...) @printf(ptr noundef nonnull align 1 dereferenceable(6) @.str, double %1)
  call void %fp(i32 signext 3) [ "deopt"(i32 1), "unknown"() ]
  %3 = call i32 asm sideeffect "mov $1, $0", "=r,r,~{dirflag}"(i32 1) #2, !srcloc !10
  %4 = call fastcc noalias ptr @alloc(i64 8) #1
  call void @llvm.memcpy.p0.p0.i64(ptr align 8 %4, ptr align 8 %fp, i64 8, i1 false)
  callbr void asm "", "r,!i"(i32 0)
          to label %5 [label %6]

5:
  ret void

6:
  ret void
}

define void @dbg(i32 %x) !dbg !4 {
    #dbg_value(i32 %x, !7, !DIExpression(), !8)
  %y = add i32 %x, 1, !dbg !8
    #dbg_value(!DIArgList(i32 %x, i32 %y), !7, !DIExpression(DW_OP_LLVM_arg, 0, DW_OP_LLVM_arg, 1, DW_OP_plus, DW_OP_stack_value), !8)
  ret void, !dbg !8
}

declare i32 @__gxx_personality_v0(...)

declare i32 @thrower(i32)

declare double @llvm.sqrt.f64(double) #1

declare i32 @printf(ptr noundef, ...)

declare !dbg !9 noalias ptr @alloc(i64)

declare void @llvm.memcpy.p0.p0.i64(ptr noalias writeonly captures(none), ptr noalias readonly captures(none), i64, i1 immarg) #4

define internal ptr @resolver() {
  ret ptr null
}

attributes #0 = { noinline nounwind optnone uwtable "frame-pointer"="all" }
attributes #1 = { nounwind memory(none) }
attributes #2 = { nounwind }
attributes #3 = { noreturn }
attributes #4 = { nocallback nofree nounwind willreturn memory(argmem: readwrite) }

!llvm.dbg.cu = !{!0}
!llvm.module.flags = !{!2, !3}

!0 = distinct !DICompileUnit(language: DW_LANG_C11, file: !1, producer: "clang", isOptimized: false, runtimeVersion: 0, emissionKind: FullDebug, splitDebugInlining: false, nameTableKind: None)
!1 = !DIFile(filename: "all.c", directory: "/tmp")
!2 = !{i32 7, !"Dwarf Version", i32 5}
!3 = !{i32 2, !"Debug Info Version", i32 3}
!4 = distinct !DISubprogram(name: "dbg", scope: !1, file: !1, line: 3, type: !5, scopeLine: 3, flags: DIFlagPrototyped, spFlags: DISPFlagDefinition, unit: !0, retainedNodes: !6)
!5 = !DISubroutineType(types: !6)
!6 = !{}
!7 = !DILocalVariable(name: "x", arg: 1, scope: !4, file: !1, line: 3, type: !11)
!8 = !DILocation(line: 4, column: 7, scope: !4)
!9 = !DISubprogram(name: "alloc", scope: !1, file: !1, line: 1, type: !5, flags: DIFlagPrototyped, spFlags: DISPFlagOptimized)
!10 = !{i64 123}
!11 = !DIBasicType(name: "int", size: 32, encoding: DW_ATE_signed)
"""


def test_everything_prints_back_exactly() -> None:
    module = parse_module(EVERYTHING, lazy=False)
    assert print_module(module) == EVERYTHING
    assemble(EVERYTHING)


MORE = r"""%struct.V = type { <vscale x 4 x i32>, target("spirv.Event") }

@vt = constant { [3 x ptr] } { [3 x ptr] [ptr null, ptr @eh, ptr dso_local_equivalent @eh] }
@vp = global ptr getelementptr inbounds inrange(-8, 16) ({ [3 x ptr] }, ptr @vt, i32 0, i32 0, i32 1)
@nc = global ptr no_cfi @eh
@llvm.used = appending global [1 x ptr] [ptr @eh], section "llvm.metadata"
@big = global i128 -170141183460469231731687303715884105728
@sub = global i64 sub (i64 ptrtoint (ptr @vp to i64), i64 ptrtoint (ptr @vt to i64))
@emptys = global {} zeroinitializer
@z = external addrspace(1) global i32, align 4

define void @eh() personality ptr @__CxxFrameHandler3 {
entry:
  invoke void @may_throw()
          to label %ok unwind label %dispatch

dispatch:
  %cs = catchswitch within none [label %handler] unwind label %cleanup

handler:
  %cp = catchpad within %cs [ptr null, i32 64, ptr null]
  catchret from %cp to label %ok

cleanup:
  %cl = cleanuppad within none []
  call void @may_throw() [ "funclet"(token %cl) ]
  cleanupret from %cl unwind to caller

ok:
  ret void
}

define <4 x float> @vec(<4 x float> %a, ptr %p, i1 %c) {
  %s = fmul <4 x float> %a, splat (float 2.000000e+00)
  %l = load <4 x float>, ptr %p, align 16
  %m = select <4 x i1> <i1 true, i1 false, i1 true, i1 false>, <4 x float> %s, <4 x float> %l
  %r = shufflevector <4 x float> %m, <4 x float> poison, <4 x i32> zeroinitializer
  %v = atomicrmw fadd ptr %p, float 1.000000e+00 seq_cst, align 4
  %w = load atomic volatile i32, ptr %p syncscope("agent") acquire, align 4
  %g = getelementptr i8, ptr addrspace(1) @z, i64 4
  %t = musttail call <4 x float> @vec(<4 x float> %r, ptr %p, i1 %c)
  ret <4 x float> %t
}

define void @records(ptr %x) !dbg !3 {
    #dbg_declare(ptr %x, !6, !DIExpression(), !7)
    #dbg_assign(i32 0, !6, !DIExpression(), !8, ptr %x, !DIExpression(), !7)
    #dbg_label(!9, !7)
  store i32 0, ptr %x, align 4, !DIAssignID !8
  ret void
}

declare void @may_throw()

declare i32 @__CxxFrameHandler3(...)

!llvm.dbg.cu = !{!0}
!llvm.module.flags = !{!2}

!0 = distinct !DICompileUnit(language: DW_LANG_C_plus_plus_14, file: !1, producer: "clang", isOptimized: true, runtimeVersion: 0, emissionKind: FullDebug)
!1 = !DIFile(filename: "more.cpp", directory: "/tmp")
!2 = !{i32 2, !"Debug Info Version", i32 3}
!3 = distinct !DISubprogram(name: "records", scope: !1, file: !1, line: 1, type: !4, scopeLine: 1, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !0, retainedNodes: !5)
!4 = !DISubroutineType(types: !5)
!5 = !{}
!6 = !DILocalVariable(name: "x", scope: !3, file: !1, line: 2, type: !10)
!7 = !DILocation(line: 2, column: 3, scope: !3)
!8 = distinct !DIAssignID()
!9 = !DILabel(scope: !3, name: "here", file: !1, line: 3)
!10 = !DIBasicType(name: "int", size: 32, encoding: DW_ATE_signed)
"""
"""Windows EH funclets, vtable constants, scalable vectors, atomics, addrspaces, debug records."""


def test_more_prints_back_exactly() -> None:
    module = parse_module(MORE, lazy=False)
    assert print_module(module) == MORE
    assemble(MORE)
    eh = module.functions["eh"]
    cs = eh.blocks[1].instructions[0]
    assert [b.name for b in cs.successors] == ["handler", "cleanup"]
    assert module.globals["z"].type == PointerType(1)


def test_everything_structure() -> None:
    """The objects behind the text: classes, operands, use lists, resolved globals."""
    m = parse_module(EVERYTHING, lazy=False)
    arith = m.functions["arith"]
    a, b = arith.args[0], arith.args[1]
    assert (a.name, a.attrs) == ("a", ("noundef",))
    first = arith.entry.instructions[0]
    assert isinstance(first, BinaryOp) and first.opcode == "add" and first.flags == ("nuw", "nsw")
    assert first.operands == (a, b) and first in a.users
    cmp = arith.entry.instructions[12]
    assert isinstance(cmp, Compare) and (cmp.predicate, cmp.flags) == ("ult", ("samesign",))

    cfg = m.functions["cfg"]
    loop = cfg.blocks[1]
    phi = loop.instructions[0]
    assert isinstance(phi, Phi) and phi.name == "i"
    inc = loop.instructions[1]
    assert phi.incoming_value_for(loop) is inc  # a forward reference, bound to its definition
    assert {blk.name for blk in loop.predecessors} == {"entry", "loop"}
    inv = cfg.blocks[3].instructions[0]
    assert isinstance(inv, Invoke) and inv.called_function is m.functions["thrower"]
    assert [s.name for s in inv.successors] == ["two", "lp"]

    mem = m.functions["mem"]
    store, load = mem.entry.instructions[3], mem.entry.instructions[6]
    assert isinstance(store, Store) and store.ptr is mem.entry.instructions[0]
    assert isinstance(load, Load) and (load.ordering, load.align) == ("seq_cst", 4)

    gep = m.globals["gep"].initializer
    assert isinstance(gep, ConstantExpr) and gep.operands[0] is m.globals["g"]
    arr = m.globals["arr"].initializer
    assert arr.elements[0].elements[1] is m.globals["g"]  # type: ignore[attr-defined]
    assert m.aliases["al"].target is m.globals["g"]
    assert m.aliases["if"].target is m.functions["resolver"]  # defined after the ifunc
    assert m.types["struct.List"].elements[1] is m.types["struct.S"]  # type: ignore[index]
    assert m.types["struct.Opaque"].is_opaque

    calls = m.functions["calls"]
    printf = calls.entry.instructions[1]
    assert isinstance(printf, Call) and printf.explicit_type and printf.function_type.vararg
    assert printf.arg_attrs[0] == ("noundef", "nonnull", "align 1", "dereferenceable(6)")
    indirect = calls.entry.instructions[2]
    assert indirect.callee is calls.args[0] and indirect.bundles[0][0] == "deopt"  # type: ignore[attr-defined]

    dbg = m.functions["dbg"]
    rec0 = dbg.entry.instructions[0].debug_records[0]
    assert isinstance(rec0, DebugRecord) and rec0.kind == "value" and rec0.operands[0] is dbg.args[0]
    arglist = dbg.entry.instructions[1].debug_records[0].operands[0]
    assert isinstance(arglist, DIArgList) and arglist.operands == (dbg.args[0], dbg.entry.instructions[0])
    assert isinstance(dbg.metadata["dbg"], MDRef) and dbg.metadata["dbg"].id == "4"
    assert isinstance(m.metadata["8"], MDSpecialized) and m.metadata["8"].get("line") == "4"


def test_numbering_is_recomputed_when_printing() -> None:
    """Gaps in the input's numbering (LLVM accepts them) print as consecutive numbers."""
    text = "define i32 @f(i32 %0) {\n  %5 = add i32 %0, 1\n  br label %9\n\n9:\n  %12 = mul i32 %5, %5\n  ret i32 %12\n}\n"
    out = print_module(parse_module(text, lazy=False))
    assert "define i32 @f(i32 %0) {\n  %2 = add i32 %0, 1\n  br label %3\n\n3:\n  %4 = mul i32 %2, %2\n  ret i32 %4\n}\n" in out
    assemble(out)


def test_lazy_body_prints_verbatim_until_touched() -> None:
    text = (
        "define i32 @f(i32 %x) {\n"
        "entry:   ; a comment the printer would drop\n"
        "  %y   =   add i32 %x,   1\n"
        "  ret i32 %y\n"
        "}\n"
        "\n"
        "define i32 @g(i32 %x) {\n"
        "  %1 = mul i32 %x, %x\n"
        "  ret i32 %1\n"
        "}\n"
    )
    m = parse_module(text, filename="lazy.ll")
    f, g = m.functions["f"], m.functions["g"]
    assert not f.is_materialized and not g.is_materialized
    out = print_module(m)
    assert text in out  # both bodies exactly as written
    assert len(g.blocks[0].instructions) == 2  # first access parses g only
    assert g.is_materialized and not f.is_materialized
    out = print_module(m)
    assert "%y   =   add i32 %x,   1" in out  # f still verbatim
    assert "define i32 @g(i32 %x) {\n  %1 = mul i32 %x, %x\n  ret i32 %1\n}\n" in out
    assemble(out)


def test_changed_header_of_untouched_function_is_printed_from_objects() -> None:
    text = "define i32 @f(i32 %x) {\n  %1 =   add i32 %x, 1\n  ret i32 %1\n}\n\nattributes #0 = { nounwind }\n"
    m = parse_module(text)
    f = m.functions["f"]
    f.fn_attrs = ("#0",)
    out = print_module(m)
    assert "define i32 @f(i32 %x) #0 {\n  %1 = add i32 %x, 1\n  ret i32 %1\n}\n" in out
    assemble(out)


def test_lazy_false_parses_every_body() -> None:
    m = parse_module(EVERYTHING, lazy=False)
    assert all(fn.is_materialized for fn in m.functions.values())


def test_global_forward_reference_and_numbered_globals() -> None:
    text = "@0 = global ptr @later\n@1 = global ptr @0\n\ndefine void @later() {\n  ret void\n}\n"
    m = parse_module(text, lazy=False)
    assert m.globals["0"].initializer is m.functions["later"]
    assert m.globals["1"].initializer is m.globals["0"]
    assert print_module(m) == text
    assemble(text)


def test_quoted_and_escaped_names() -> None:
    text = (
        '%"class.std::vector" = type { ptr }\n\n'
        '@"\\01foo" = global i32 0\n@"a b" = global ptr @"\\01foo"\n\n'
        'define void @"odd name"(ptr %"x y") {\n"my block":\n  %"v\\22q" = load i32, ptr %"x y", align 4\n  ret void\n}\n'
    )
    m = parse_module(text, lazy=False)
    assert "\x01foo" in m.globals and "a b" in m.globals and "class.std::vector" in m.types
    fn = m.functions["odd name"]
    assert fn.args[0].name == "x y" and fn.blocks[0].name == "my block"
    assert fn.blocks[0].instructions[0].name == 'v"q'
    assert print_module(m) == text
    assemble(text)


def test_float_constants_keep_their_spelling_and_value() -> None:
    m = parse_module(
        "@a = global double 2.500000e+00\n@b = global float 0x3FB99999A0000000\n"
        "@c = global x86_fp80 0xK3FFF8000000000000000\n@d = global half 0xH3C00\n"
        "@e = global fp128 0xL00000000000000003FFF000000000000\n"
    )
    values = {k: g.initializer.value for k, g in m.globals.items()}  # type: ignore[union-attr]
    assert values["a"] == 2.5 and abs(values["b"] - 0.1) < 1e-8
    assert values["c"] == 1.0 and values["d"] == 1.0 and values["e"] == 1.0
    assert m.globals["b"].initializer.ref() == "0x3FB99999A0000000"  # type: ignore[union-attr]


def test_integer_constants_wrap_to_their_width() -> None:
    m = parse_module("@a = global i8 -1\n@b = global i8 255\n@c = global i1 true\n@d = global i128 u0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF\n")
    init = {k: g.initializer for k, g in m.globals.items()}
    assert all(isinstance(v, ConstantInt) for v in init.values())
    assert [init[k].value for k in "abcd"] == [-1, -1, -1, -1]  # type: ignore[union-attr]
    assert init["b"].unsigned == 255  # type: ignore[union-attr]


def test_function_and_global_details() -> None:
    m = parse_module(EVERYTHING)
    arith = m.functions["arith"]
    assert arith.linkage.words == ["dso_local"] and arith.ret_attrs == ("noundef",) and arith.fn_attrs == ("#0",)
    assert m.functions["cfg"].header_suffix == ["personality ptr @__gxx_personality_v0"]
    alloc = m.functions["alloc"]
    assert alloc.is_declaration and alloc.ret_attrs == ("noalias",) and isinstance(alloc.metadata["dbg"], MDRef)
    g = m.globals["cd"]
    assert isinstance(g, GlobalVariable) and g.linkage.linkage == "linkonce_odr" and g.suffix == ["comdat", "align 4"]
    assert m.attribute_groups["4"] == ("nocallback", "nofree", "nounwind", "willreturn", "memory(argmem: readwrite)")
    assert m.named_metadata["llvm.module.flags"] == ["2", "3"]
    assert isinstance(m.functions["mem"], Function) and not m.functions["mem"].is_materialized


# ---------------------------------------------------------------- malformed input
BODY_AT_LINE_3 = "; a comment\n@g = global i32 0\ndefine i32 @f(i32 %x) {\n"
ERRORS = [
    # (text, line, column, message fragment)
    (BODY_AT_LINE_3 + "  %y = add i32 %x, %z\n  ret i32 %y\n}\n", 4, 20, "use of undefined value '%z'"),
    (BODY_AT_LINE_3 + "  %y = add i32 %x %x\n  ret i32 %y\n}\n", 4, 19, "unexpected '%x'; expected ','"),
    (BODY_AT_LINE_3 + "  %y = add i64 %x, 1\n  ret i32 %y\n}\n", 4, 16, "'%x' defined with type 'i32' but expected 'i64'"),
    (BODY_AT_LINE_3 + "  %y = add i32 %x, 1\n  ret i32 %y `\n}\n", 5, 14, "unexpected character '`'"),
    (BODY_AT_LINE_3 + "  %y = add i32 %x, 1\n  br label %nowhere\n}\n", 5, 12, "use of undefined label '%nowhere'"),
    (BODY_AT_LINE_3 + "  %y = add i32 %x, 1\nnext:\n  ret i32 %y\n}\n", 5, 1, "no terminator"),
    (BODY_AT_LINE_3 + "  %y = call i32 @missing(i32 %x)\n  ret i32 %y\n}\n", 4, 17, "use of undefined value '@missing'"),
    (BODY_AT_LINE_3 + "  %5 = add i32 %x, 1\n  %3 = add i32 %5, 1\n  ret i32 %3\n}\n", 5, 3, "numbered '%6' or greater"),
    (BODY_AT_LINE_3 + "  %y = fadd double %x, 1\n  ret i32 %y\n}\n", 4, 20, "'%x' defined with type 'i32' but expected 'double'"),
    (BODY_AT_LINE_3 + "  %y = fadd double 1.0, 1\n  ret i32 %y\n}\n", 4, 25, "integer constant must have integer type"),
    (BODY_AT_LINE_3 + "  ret i32 %x\n", 3, 23, "no closing '}'"),
    ("@g = global i32 0\n@g = global i32 1\n", 2, 1, "redefinition of global '@g'"),
    ("@g = global %struct.T zeroinitializer\n", 1, 13, "use of undefined type named 'struct.T'"),
    ("@g = global i32\n", 1, 16, "expected an initializer"),
    ("@g = global [2 x i8] c\"abc\"\n", 1, 22, 'c"..." of 3 bytes'),
    ("!0 = !{!1\n", 1, 6, "expected metadata node"),
    ("attributes #0 = { nounwind ) }\n", 1, 28, "unexpected ')' in attribute group"),
    ("define void @f() {\n  ret void\n}\nfoo bar\n", 4, 1, "unexpected 'foo'"),
]


@pytest.mark.parametrize("text,line,column,fragment", ERRORS, ids=[e[3][:30] for e in ERRORS])
def test_malformed_input(text: str, line: int, column: int, fragment: str) -> None:
    with pytest.raises(IRParseError) as info:
        m = parse_module(text, filename="bad.ll")
        for fn in m.functions.values():
            fn.blocks  # noqa: B018 - body errors surface on first access
    err = info.value
    assert (err.filename, err.line, err.column) == ("bad.ll", line, column), str(err)
    assert fragment in err.message
    assert str(err) == f"bad.ll:{line}:{column}: error: {err.message}"


def test_body_error_is_raised_on_first_access_only() -> None:
    text = BODY_AT_LINE_3 + "  %y = add i32 %x, %z\n  ret i32 %y\n}\n"
    m = parse_module(text, filename="bad.ll")  # the body is not looked at yet
    f = m.functions["f"]
    for _ in range(2):  # and the error is raised again on a second access
        with pytest.raises(IRParseError, match=r"^bad.ll:4:20: error: use of undefined value '%z'$"):
            f.blocks  # noqa: B018
    assert m.globals["g"].num_uses == 0


def test_failed_body_leaves_no_uses_behind() -> None:
    text = "define void @h() {\n  ret void\n}\ndefine void @f() {\n  call void @h()\n  %x = add i32 %oops, 1\n  ret void\n}\n"
    m = parse_module(text)
    with pytest.raises(IRParseError):
        m.functions["f"].blocks  # noqa: B018
    assert m.functions["h"].num_uses == 0


# ---------------------------------------------------------------- bitcode and files
def test_bitcode_input_matches_text(tmp_path) -> None:  # type: ignore[no-untyped-def]
    if LLVM_AS is None:
        pytest.skip("llvm-as-22 not installed")
    src = tmp_path / "m.ll"
    src.write_text(EVERYTHING)
    bc = tmp_path / "m.bc"
    subprocess.run([LLVM_AS, str(src), "-o", str(bc)], check=True)
    from_bc = parse_file(bc, lazy=False)
    from_ll = parse_file(src, lazy=False)
    assert list(from_bc.functions) == list(from_ll.functions)
    assert list(from_bc.globals) == list(from_ll.globals)
    assert [len(f.blocks) for f in from_bc.functions.values()] == [len(f.blocks) for f in from_ll.functions.values()]
    assemble(print_module(from_bc))
    with pytest.raises(IRParseError, match="invalid bitcode"):
        parse_bitcode(bc.read_bytes()[:40], filename="cut.bc")


def test_source_location_follows_debug_info() -> None:
    m = parse_module(EVERYTHING)
    dbg = m.functions["dbg"]
    add = dbg.entry.instructions[0]
    assert str(source_location(m, add)) == "all.c:4:7"
    assert source_location(m, m.functions["arith"].entry.instructions[0]) is None
    assert str(function_location(m, dbg)) == "all.c:3:0"


USELISTORDER = """@g = global i32 0

define i32 @h(i32 %x) {
  %a = load i32, ptr @g, align 4
  %b = load i32, ptr @g, align 4
  %c = add i32 %a, %x
  %d = add i32 %b, %x
  %e = add i32 %c, %d
  ret i32 %e

; uselistorder directives
  uselistorder i32 %x, { 1, 0 }
}

uselistorder ptr @g, { 1, 0 }
"""


def test_uselistorder_directives() -> None:
    """Kept verbatim while nothing is parsed; dropped (they carry no semantics and
    would go stale) once bodies are printed from objects."""
    lazy = print_module(parse_module(USELISTORDER))
    assert "uselistorder i32 %x, { 1, 0 }" in lazy and lazy.endswith("uselistorder ptr @g, { 1, 0 }\n")
    assemble(lazy)
    full = print_module(parse_module(USELISTORDER, lazy=False))
    assert "uselistorder" not in full
    assemble(full)


def test_metadata_operands_are_split_on_first_use() -> None:
    text = (
        "@g = global i32 0\n"
        '!0 = !{i32 1, !"x", ptr @g, null}\n'
        "!1 = distinct !DILocation(line: 3, column: 4, scope: !2)\n"
        '!2 = !DISubprogram(name: "f, g", flags: DIFlagPrototyped | DIFlagArtificial)\n'
        '!3 = !{!1, !"unterminated}\n'
    )
    m = parse_module(text, filename="md.ll")
    assert str(m.metadata["1"]) == "distinct !DILocation(line: 3, column: 4, scope: !2)"
    assert m.metadata["2"].get("name") == '"f, g"'  # type: ignore[union-attr]
    assert m.metadata["2"].fields[1] == ("flags", "DIFlagPrototyped | DIFlagArtificial")  # type: ignore[union-attr]
    ops = m.metadata["0"].operands  # type: ignore[union-attr]
    assert ops[2].value is m.globals["g"] and ops[3] is None  # type: ignore[union-attr]
    with pytest.raises(IRParseError, match=r"^md.ll:5:"):
        m.metadata["3"].operands  # type: ignore[union-attr] # noqa: B018
    with pytest.raises(IRParseError, match=r"^md.ll:5:"):
        parse_module(text, filename="md.ll", lazy=False)
    m.metadata["1"].fields[0] = ("line", "30")  # type: ignore[union-attr]
    assert "!1 = distinct !DILocation(line: 30, column: 4, scope: !2)" in print_module(m)


def test_forward_reference_inside_metadata_operand() -> None:
    text = (
        "define void @f(i1 %c) {\n"
        "entry:\n  br i1 %c, label %a, label %b\n\n"
        "a:\n  call void @llvm.fake.use(metadata i32 %v)\n  ret void\n\n"
        "b:\n  %v = add i32 1, 2\n  br label %a\n}\n\n"
        "declare void @llvm.fake.use(metadata)\n"
    )
    m = parse_module(text, lazy=False)
    call = m.functions["f"].blocks[1].instructions[0]
    v = m.functions["f"].blocks[2].instructions[0]
    assert call.args[0].md.value is v  # type: ignore[attr-defined]


def test_llvm_accepts_these_too() -> None:
    """Inputs llvm-as accepts that LLVM itself never prints: a metadata node continued
    on an indented line, a call of an intrinsic that is not declared, no space
    between a return type and its parameter list."""
    text = (
        "define double @f(double %x) {\n"
        "  %r = call double @llvm.sqrt.f64(double %x)\n"
        "  %n = call i32(ptr, ...) @printf(ptr null, double %r)\n"
        "  ret double %r\n"
        "}\n\n"
        "declare i32 @printf(ptr, ...)\n\n"
        "!0 = !{i32 1,\n"
        '       !"two"}\n'
        "!1 = !{!0}\n"
    )
    m = parse_module(text, lazy=False)
    assert m.functions["llvm.sqrt.f64"].function_type.params == (DOUBLE,)
    assert m.metadata["0"].operands[1].text == "two"  # type: ignore[union-attr]
    out = print_module(m)
    # printed undeclared, as read: LLVM declares it from the call (test_verify_input's
    # test_undeclared_intrinsic_stays_undeclared says why)
    assert "declare double @llvm.sqrt.f64" not in out and '!0 = !{i32 1, !"two"}' in out
    assemble(out)


def test_layouts_llvm_does_not_print() -> None:
    """One-line functions, a body starting on the header line, an unlabeled block
    after a terminator (it takes the next number, which a branch may already use),
    numbers with leading zeros, a type glued to the next word, line breaks inside
    a global's suffix."""
    text = (
        "define void @f() { ret void }\n"
        "define i32 @g(i1 %c) {  br i1 %c, label %1, label %2\n"
        "  ret i32 1\n"
        "2:\n  ret i32 2\n}\n"
        "@h = global { i32 } { i32 7 },\nalign 4, !x\n  !0\n"
        "define i64 @k(i64noundef %0) {\n  %02 = add i64 %00, 1\n  ret i64 %2\n}\n!0 = !{}\n"
    )
    m = parse_module(text, lazy=False)
    assert [len(f.blocks) for f in m.functions.values()] == [1, 3, 1]
    assert m.functions["k"].args[0].attrs == ("noundef",)
    g = m.functions["g"]
    assert g.blocks[0].instructions[0].successors == [g.blocks[1], g.blocks[2]]
    out = print_module(m)
    assert "define void @f() {\n  ret void\n}\n" in out and "@h = global { i32 } { i32 7 }, align 4, !x !0" in out
    assemble(out)


def test_damaged_input_raises_only_irparseerror() -> None:
    """Deleting, inserting and swapping characters anywhere gives a clean result or
    an IRParseError, never another exception (a fixed pseudo-random sample)."""
    import random

    rng = random.Random(20261122)
    outcomes = {"parsed": 0, "error": 0}
    for _ in range(150):
        text = rng.choice([EVERYTHING, MORE])
        p = rng.randrange(len(text))
        match rng.randrange(3):
            case 0:
                damaged = text[:p] + text[p + rng.randrange(1, 6) :]
            case 1:
                damaged = text[:p] + rng.choice('%@!#{}[](),=<>x09"; \n:.-') + text[p:]
            case _:
                q = rng.randrange(len(text))
                a, b = sorted((p, q))
                damaged = text[:a] + text[b : b + 4] + text[a + 4 : b] + text[a : a + 4] + text[b + 4 :]
        try:
            print_module(parse_module(damaged, lazy=False))
            outcomes["parsed"] += 1
        except IRParseError as e:
            assert e.line >= 1 and e.column >= 1
            outcomes["error"] += 1
    assert outcomes["error"] > 50  # the damage is mostly noticed


def test_parsing_from_several_threads() -> None:
    """The frontend runs jobs in threads; parses must not share half-built state."""
    from concurrent.futures import ThreadPoolExecutor

    def job(i: int) -> str:
        m = parse_module(EVERYTHING if i % 2 else MORE)
        for fn in m.functions.values():
            fn.blocks  # noqa: B018
        return print_module(m)

    with ThreadPoolExecutor(max_workers=4) as pool:
        outputs = list(pool.map(job, range(8)))
    assert outputs == [EVERYTHING if i % 2 else MORE for i in range(8)]


def test_repeated_attachments_on_globals_and_functions() -> None:
    """A global variable may carry several `!dbg` (and `!type`) attachments, a
    function several `!type`; all are kept in order (simdjson at -O2 -g has them)."""
    text = (
        "@g = global i32 0, align 4, !type !0, !type !1\n\n"
        "define void @f() !type !0 !type !1 {\n  ret void\n}\n\n"
        '!0 = !{i64 0, !"a"}\n!1 = !{i64 0, !"b"}\n'
    )
    m = parse_module(text, lazy=False)
    g, f = m.globals["g"], m.functions["f"]
    assert isinstance(g.metadata["type"], MDRef) and [(k, str(v)) for k, v in g.repeated_metadata] == [("type", "!1")]
    assert [(k, str(v)) for k, v in f.repeated_metadata] == [("type", "!1")]
    assert print_module(m) == text
    assemble(text)
