"""Regression tests from the fuzzers: invalid IR that enzc.ir used to accept (and print
as IR llvm-as rejects), valid IR it used to reject or crash on. Each case is checked
against llvm-as-22 too, so the expectation is LLVM's, not ours."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from enzc.errors import EnzcError
from enzc.ir import parse_module, print_module, verify_module

FN = "define void @f() {\n  ret void\n}\n"
DI = ('!llvm.dbg.cu = !{!0}\n!llvm.module.flags = !{!3}\n'
      '!0 = distinct !DICompileUnit(language: DW_LANG_C11, file: !1, emissionKind: FullDebug)\n'
      '!1 = !DIFile(filename: "a.c", directory: "/")\n'
      '!3 = !{i32 2, !"Debug Info Version", i32 3}\n')

TBAA_TYPES = ('!0 = !{!"Simple C/C++ TBAA"}\n!1 = !{!"omnipotent char", !0, i64 0}\n'
              '!2 = !{!"int", !1, i64 0}\n!3 = !{!"double", !1, i64 0}\n'
              '!4 = !{!"s", !2, i64 0, !3, i64 8}\n!5 = !{!"outer", !2, i64 0, !4, i64 8}\n'
              '!6 = !{i32 8, !"PIC Level", i32 2}\n!7 = !{!"t", !2, i64 0, !6, i64 8}\n'
              '!8 = !{!"u", !2, i64 8, !3, i64 0}\n')


_ASM = 'define void @f(i32 %%a, i32 %%b, ptr %%p) {\n  call %s asm sideeffect "", "%s"(%s)\n  ret void\n}\n'
"""A call of inline assembly: return type, constraints, arguments."""
_LOAD = "define i64 @f(ptr %%p) {\n  %%r = %s\n  ret i64 %%r\n}\n"
"""A function returning one load (its text filled in)."""
CALL_G = "declare void @g(ptr)\ndefine void @f(ptr %%p) {\n  call void @g(ptr %s %%p)\n  ret void\n}\n"
"""A call of @g whose pointer argument carries the attributes given."""
LOOP = ("define void @f(i1 %%c) {\nentry:\n  br label %%l\nl:\n  br i1 %%c, label %%l, label %%e, !llvm.loop %s\n"
        "e:\n  ret void\n}\n%s")
"""A one-block loop whose latch carries the `!llvm.loop` given, and the nodes after it."""
BLOCKADDRESS = "@x = global ptr blockaddress(%s)\ndefine void @f() {\n  br label %%b\nb:\n  ret void\n}\n"
"""A global holding the blockaddress given, and a function @f with blocks %0 and %b."""
SCOPE_DECL = ("declare void @llvm.experimental.noalias.scope.decl(metadata)\ndefine void @f() {\n"
              "  call void @llvm.experimental.noalias.scope.decl(metadata %s)\n  ret void\n}\n"
              '!0 = distinct !{!0, !"domain"}\n!1 = distinct !{!1, !0, !"scope"}\n')
"""A noalias scope declaration of the list given (scope !1 in domain !0)."""
SHUFFLE = ("define <2 x float> @f(<2 x float> %%a, <2 x i32> %%m) {\n"
           "  %%r = shufflevector <2 x float> %%a, <2 x float> %%a, %s\n  ret <2 x float> %%r\n}\n")
"""A shufflevector of two <2 x float> with the mask given."""
ATOMIC = "define void @f(ptr %%p) {\n  %%r = %s\n  ret void\n}\n"
"""A function accessing `%p` atomically (the instruction given)."""
_RANGE = "define i32 @f(ptr %%p) {\n  %%v = load i32, ptr %%p, !range !0\n  ret i32 %%v\n}\n!0 = !{%s}\n"
"""A load with `!range !{...}` (the intervals filled in)."""


def _tbaa(*tags: str, inst: str = "load i32, ptr %p") -> str:
    """A function accessing memory once per tag (`!10`, `!11`, ...) over TBAA_TYPES."""
    lines = [f"  %v{k} = {inst}, !tbaa !{10 + k}\n" for k in range(len(tags))]
    nodes = [f"!{10 + k} = {tag}\n" for k, tag in enumerate(tags)]
    return "define void @f(ptr %p) {\n" + "".join(lines) + "  ret void\n}\n" + TBAA_TYPES + "".join(nodes)

PROF = "define void @f(i1 %c) {\n  br i1 %c, label %a, label %a, !prof !0\na:\n  ret void\n}\n!0 = NODE\n"
"""A conditional branch with the `!prof` node given."""
TLS = ("declare ptr @llvm.threadlocal.address.p0(ptr)\n@t = thread_local global i32 0\n"
       "@n = global i32 0\n@a = alias i32, ptr @t\n@b = thread_local alias i32, ptr @t\n"
       "define ptr @f(ptr %p) {\n  %r = call ptr @llvm.threadlocal.address.p0(ptr OPERAND)\n"
       "  ret ptr %r\n}\n")
"""A call of llvm.threadlocal.address on the operand given."""
MUSTTAIL = "declare i32 @g(i32)\ndefine CALLER {\n  CALL\n}\n"
"""A function `CALLER` whose body is `CALL` (a musttail call of @g and a ret)."""
EH = ("declare void @g()\ndeclare i32 @__gxx_personality_v0(...)\ndefine void @f() PERSONALITY {\n"
      "  ENTRY\na:\n  ret void\nb:\n  PAD\n  ret void\n}\n")
"""An entry block `ENTRY` (an invoke of @g), a block %a, a block %b starting with `PAD`."""
EH_PERS = "personality ptr @__gxx_personality_v0"
EH_ENTRY = "invoke void @g() to label %a unwind label %b"
EH_PAD = "%l = landingpad { ptr, i32 } cleanup"

INVALID = {
    "nul-in-name": '@"a\\00b" = global i32 0\n',
    "raw-nul-in-name": '@"a\0b" = global i32 0\n',
    "stray-star": "define void @f(i32 %x) {\n  %y = phi * [ %x, %0 ]\n  ret void\n}\n",
    "unlabelled-field": DI + "!4 = !DIBasicType(name: \"int\", 32)\n",
    "repeated-field": DI + "!4 = !DIBasicType(name: \"int\", size: 32, size: 32)\n",
    "unknown-field": DI + "!4 = !DIBasicType(name: \"int\", colour: 3)\n",
    "missing-required": DI + "!4 = !DIDerivedType(tag: DW_TAG_pointer_type)\n",
    "wrong-kind": DI + "!4 = !DIBasicType(name: \"int\", line: !1)\n",
    "out-of-range": DI + "!4 = !DILocation(line: 1, column: 70000, scope: !1)\n",
    "cu-not-distinct": "!0 = !DICompileUnit(language: DW_LANG_C11, file: !1)\n"
                       "!1 = !DIFile(filename: \"a.c\", directory: \"/\")\n",
    "undefined-node": DI + "!4 = !{!99}\n",
    "undefined-attachment": "define void @f() {\n  ret void, !foo !7\n}\n",
    "tuple-junk": '!0 = !{i32 80 !"PIC Level", i32 2}\n',
    "tuple-bare-int": "!0 = !{!\"int\", 3}\n",
    "tuple-zero-width-integer": "!0 = !{i0 612}\n!n = !{!0}\n",
    "tuple-integer-of-struct-type": "%0 = type { i32 }\n!0 = !{%0 7}\n!n = !{!0}\n",
    "unknown-attribute": "declare void @f() bogusattr\n",
    "param-attr-on-function": "declare void @f() noundef\n",
    "function-attr-on-param": "declare void @f(ptr nounwind)\n",
    "memory-syntax": "declare void @f() #0\nattributes #0 = { memory(stack: read) }\n",
    "attribute-word-in-group": 'attributes #0 = { nounwind "a"insertvalue"b" }\n',
    "align-not-power-of-two": "@g = global i32 0, align 3\n",
    "align-too-large": "define void @f(ptr %p) {\n  %v = load i32, ptr %p, align 8589934592\n"
                       "  ret void\n}\n",
    "array-length": "@g = global [2 x i32] [i32 1]\n",
    "struct-length": "@g = global { i32, i8 } { i32 1 }\n",
    "vector-element-type": "@g = global <2 x i32> <i32 1, i64 2>\n",
    "external-with-initializer": "@g = external global i32 0\n",
    "float-not-exact": "@g = global float 0.1\n",
    "captures-syntax": "declare void @f(ptr captures(adress))\n",
    "header-after-entity": '@g = global i32 0\nsource_filename = "x"\n',
    "tbaa-offset-width": "define i32 @f(ptr %p) {\n  %v = load i32, ptr %p, align 4, !tbaa !0\n"
                         "  ret i32 %v\n}\n!0 = !{!1, !1, i7 0}\n!1 = !{!\"int\", !2, i64 0}\n"
                         "!2 = !{!\"char\", !3, i64 0}\n!3 = !{!\"Simple C/C++ TBAA\"}\n",
    "tuple-two-strings": '!0 = !{!"double" "double"}\n!n = !{!0}\n',
    "nul-in-type-name": '%"t\0u" = type { i32 }\n@g = global %"t\0u" zeroinitializer\n',
    "repeated-flag": "define i32 @f(i32 %x) {\n  %y = sub nsw nsw i32 0, %x\n  ret i32 %y\n}\n",
    "intrinsic-signature": "declare void @llvm.trap()\ndefine void @f() {\n"
                           "  call void @llvm.trap(i32 1)\n  ret void\n}\n",
    "datalayout-size": 'target datalayout = "e-i8589934592:64"\n',
    "datalayout-pointer-size": 'target datalayout = "e-p:0:64"\n',
    "tuple-string-then-junk": '!n = !{!0}\n!0 = !{i32 8, !"PIC Level"{ i32 2}\n',
    "none-not-token": "define i32 @f() {\n  ret i32 none\n}\n",
    "none-in-aggregate": "@g = global { ptr, i32 } { ptr null, i32 none }\n",
    "null-not-pointer": "@g = global i32 null\n",
    "errno-tbaa-old-style": '!llvm.errno.tbaa = !{!0}\n!0 = !{i32 8, !"PIC Level", i32 2}\n',
    "errno-tbaa-scalar": '!llvm.errno.tbaa = !{!0}\n!0 = !{!"int", !1, i64 0}\n!1 = !{!"Simple C/C++ TBAA"}\n',
    **{f"gep-{name}": "%s = type { i32, i64 }\n%o = type opaque\n@g = global %s zeroinitializer\n"
       f"define void @f(ptr %p, <2 x ptr> %v, i32 %i) {{\n{body}  ret void\n}}\n" for name, body in {
           "struct-index-i7": "  %q = getelementptr inbounds nuw %s, ptr %p, i32 0, i7 0\n",  # ll:593
           "struct-index-i64": "  %q = getelementptr %s, ptr %p, i64 0, i64 1\n",
           "struct-index-variable": "  %q = getelementptr %s, ptr %p, i64 0, i32 %i\n",
           "struct-index-out-of-range": "  %q = getelementptr %s, ptr %p, i64 0, i32 2\n",
           "struct-index-negative": "  %q = getelementptr %s, ptr %p, i64 0, i32 -1\n",
           "struct-index-undef": "  %q = getelementptr %s, ptr %p, i64 0, i32 undef\n",
           "struct-index-lanes-differ": "  %q = getelementptr %s, <2 x ptr> %v, i64 0, "
                                       "<2 x i32> <i32 0, i32 1>\n",
           "index-not-integer": "  %q = getelementptr i32, ptr %p, double 1.0\n",
           "into-scalar": "  %q = getelementptr i32, ptr %p, i64 0, i64 1\n",
           "unsized-source": "  %q = getelementptr %o, ptr %p, i64 1\n",
           "unsized-source-no-index": "  %q = getelementptr %o, ptr %p\n",
           "vector-widths": "  %q = getelementptr i32, <2 x ptr> %v, <4 x i64> zeroinitializer\n",
           "base-not-pointer": "  %q = getelementptr i32, i64 0, i64 1\n",
           "constant-struct-index": "  store ptr getelementptr (%s, ptr @g, i64 0, i7 1), ptr %p\n",
           "constant-out-of-range": "  store ptr getelementptr (%s, ptr @g, i64 0, i32 5), ptr %p\n",
       }.items()},
    "huge-vector-constant": "declare void @g(<4294967295 x double>)\ndefine void @f() {\n"  # ll:3000748
                            "  call void @g(<4294967295 x double> <double 9.0, double 4.0>)\n"
                            "  ret void\n}\n",
    "huge-array-constant": "@g = global [1099511627776 x i8] [i8 1, i8 2]\n",
    "global-unknown-word": '@s = private DISPFlagLocalToUnit constant [2 x i8] c"a\\00"\n',  # ll:3001887
    "global-words-out-of-order": "@g = dso_local internal global i32 0\n",
    "global-local-hidden": "@g = internal hidden global i32 0\n",
    "global-local-dllexport": "@g = private dllexport global i32 0\n",
    "global-unknown-property": "@g = global i32 0, bogus\n",
    "global-code-model": '@g = global i32 0, code_model "huge"\n',
    "alias-externally-initialized": "@g = global i32 0\n@a = externally_initialized alias i32, ptr @g\n",
    "function-words-out-of-order": "define dso_local private void @f() {\n  ret void\n}\n",
    "text-after-function": "define void @f() {\n  ret void\n} }\n",  # ll:3001566
    "tbaa-field-not-a-type-node": _tbaa("!{!7, !3, i64 8}"),  # ll:3002309
    "tbaa-offsets-decreasing": _tbaa("!{!8, !2, i64 8}"),
    "tbaa-access-not-scalar": _tbaa("!{!4, !4, i64 0}"),
    "tbaa-scalar-at-nonzero-offset": _tbaa("!{!2, !2, i64 4}"),
    "tbaa-access-off-path": _tbaa("!{!4, !2, i64 8}"),
    "tbaa-immutable-flag": _tbaa("!{!2, !2, i64 0, i64 2}"),
    "tbaa-on-arithmetic": _tbaa("!{!2, !2, i64 0}", inst="add i32 0, 1"),
    "array-count-over-64-bits": "%t = type { [99999999999999999999999 x i64] }\n",  # ll:3002410
    "vector-of-zero": "%t = type { <0 x i32> }\n",
    "empty-attribute-group": FN + "attributes #0 = { }\n",  # ll:3011347, ll:3013209
    "code-after-carriage-return-in-comment": "; a comment\r) e\n" + FN,  # ll:3012526
    "code-after-carriage-return-in-body-comment": "define void @f() {\n0: ; x\r!ds = %0\n"
                                                  "  ret void\n}\n",  # ll:3014003
    "local-in-constant-vector": "define <2 x double> @f(double %x) {\n"  # ll:3012891
                                "  ret <2 x double> <double %x, double 1.0>\n}\n",
    "local-in-constant-struct": "define void @f(i32 %x) {\n"
                                "  %s = insertvalue { i32 } { i32 %x }, i32 0, 0\n  ret void\n}\n",
    "empty-errno-tbaa": "!llvm.errno.tbaa = !{}\n",  # ll:3200650
    "bad-inline-expression-in-record": "define void @f(i32 %x) {\n"  # ll:3100803
                                       "  #dbg_value(i32 %x, !0, !DIExpression(\\), !1)\n  ret void\n}\n"
                                       "!0 = !{}\n!1 = !{}\n",
    "negative-call-align": "declare void @g(ptr)\ndefine void @f(ptr %p) {\n"  # ll:3201838
                           "  call void @g(ptr align -1 %p)\n  ret void\n}\n",
    "scope-not-naming-itself": "define void @f(ptr %p) {\n  store i32 0, ptr %p, !alias.scope !0\n"  # ll:3100676
                               "  ret void\n}\n!0 = !{!1}\n!1 = distinct !{!3, !2}\n"
                               "!2 = distinct !{!2}\n!3 = !{}\n",
    "scope-list-of-strings": "define void @f(ptr %p) {\n  store i32 0, ptr %p, !noalias !0\n"  # ll:3200829
                             "  ret void\n}\n!0 = !{!\"x\"}\n",
    "local-in-splat": "define <2 x i32> @f(i32 %x) {\n  ret <2 x i32> splat (i32 %x)\n}\n",
    "vector-too-long": "%t = type { <4294967296 x i32> }\n",
    "vector-of-arrays": "%t = type { <2 x [2 x i32]> }\n",
    "array-of-labels": "%t = type { [2 x label] }\n",
    "range-of-another-width": "define range(i3 -1, 2) i32 @f() {\n  ret i32 0\n}\n",  # ll:3003385
    "range-on-call-of-another-width": "declare i32 @g()\ndefine void @f() {\n"
                                      "  %r = call range(i8 0, 2) i32 @g()\n  ret void\n}\n",
    "nonnull-on-integer": "declare void @f(i32 nonnull)\n",
    "nonnull-on-pointer-vector": "declare void @f(<2 x ptr> nonnull)\n",
    "signext-on-pointer": "declare void @f(ptr signext)\n",
    "nofpclass-on-integer": "declare nofpclass(nan) i32 @f()\n",
    "target-feature-without-sign": 'define void @f() #0 {\n  ret void\n}\n'  # ll:3002020
                                   'attributes #0 = { "target-features"="+sse,{sse2" }\n',
    "flag-of-another-instruction": "define i32 @f(i32 %x) {\n"  # ll:3007027
                                   "  %y = udiv nuw nsw i32 %x, 1\n  ret i32 %y\n}\n",
    "disjoint-on-and": "define i32 @f(i32 %x) {\n  %y = and disjoint i32 %x, 1\n  ret i32 %y\n}\n",
    "gep-constant-in-initializer": "%s = type { i32, i64 }\n@g = global %s zeroinitializer\n"
                                   "@h = global ptr getelementptr (%s, ptr @g, i32 0, i16 1)\n",
    **{f"module-flag-{name}": "!llvm.module.flags = !{!0, !1}\n!0 = !{i32 1, !\"wchar_size\", i32 4}\n"
       f"!1 = {flag}\n" for name, flag in {
           "id-twice": '!{i32 1, !"wchar_size", i32 2}',
           "two-operands": '!{i32 1, !"x"}',
           "behavior-not-integer": '!{!"a", !"x", i32 4}',
           "behavior-out-of-range": '!{i32 9, !"x", i32 4}',
           "id-not-string": '!{i32 1, i32 3, i32 4}',
           "require-not-pair": '!{i32 3, !"x", i32 4}',
           "append-not-node": '!{i32 5, !"x", i32 4}',
           "max-not-integer": '!{i32 7, !"x", !"s"}',
           "min-negative": '!{i32 8, !"x", i32 -1}',
           "wchar-size-not-integer": '!{i32 3, !"wchar_size", !{!"wchar_size", i32 4}}',
       }.items()},
    # ll:3101232: the lists of used globals and of constructors, as LLVM's verifier has them
    "used-not-appending": '@x = global i32 0\n@llvm.used = global [1 x ptr] [ptr @x]\n',
    "ctors-internal": "@llvm.global_ctors = internal global [0 x { i32, ptr, ptr }] zeroinitializer\n",
    "used-referenced": '@x = global i32 0\n@llvm.used = appending global [1 x ptr] [ptr @x]\n'
                       "@y = global ptr @llvm.used\n",
    "used-of-integers": "@llvm.used = appending global [1 x i32] [i32 0]\n",
    "used-member-not-global": '@x = global i32 0\n@llvm.compiler.used = appending global '
                              "[1 x ptr] [ptr getelementptr (i8, ptr @x, i64 1)]\n",
    "used-zero-initializer": "@llvm.used = appending global [1 x ptr] zeroinitializer\n",
    "ctors-two-fields": "@llvm.global_dtors = appending global [0 x { i32, ptr }] []\n",
    "appending-scalar": "@a = appending global i32 0\n",
    # ll:3101884: !prof nodes, named by their first operand
    **{f"prof-{name}": PROF.replace("NODE", md) for name, md in {
        "name-not-string": '!{i32 8, !"PIC Level", i32 2}',
        "unknown-name": '!{!"foo", i32 1}',
        "name-only": '!{!"branch_weights"}',
        "wrong-weight-count": '!{!"branch_weights", i32 1, i32 2, i32 3}',
        "weight-not-integer": '!{!"branch_weights", float 1.0, i32 2}',
        "value-profile-kind": '!{!"VP", i32 3, i64 1, i64 2, i64 3}',
        "unknown-without-origin": '!{!"unknown"}',
    }.items()},
    "prof-weights-on-add": "define i32 @f(i32 %x) {\n  %y = add i32 %x, 1, !prof !0\n  ret i32 %y\n}\n"
                           '!0 = !{!"branch_weights", i32 1}\n',
    "prof-call-target-profile-on-load": "define i32 @f(ptr %p) {\n  %y = load i32, ptr %p, !prof !0\n"
                                        '  ret i32 %y\n}\n!0 = !{!"VP", i32 0, i64 1, i64 2, i64 3}\n',
    # ll:3201419: llvm.threadlocal.address of a global that is not thread_local
    **{f"threadlocal-address-of-{name}": TLS.replace("OPERAND", op) for name, op in {
        "plain-global": "@n", "alias-of-tls": "@a", "argument": "%p", "null": "null",
        "expression": "getelementptr (i8, ptr @t, i64 1)"}.items()},
    # ll:3202378: what follows a function's parameters comes in LLVM's order, once
    **{f"header-{name}": f"define void @f() {words} {{\n  ret void\n}}\n" for name, words in {
        "unnamed-addr-twice": "unnamed_addr unnamed_addr",
        "attribute-before-unnamed-addr": "nounwind local_unnamed_addr",
        "section-before-attribute": 'section "a" nounwind',
        "align-after-gc": 'gc "x" align 4',
        "personality-twice": "personality ptr null personality ptr null",
    }.items()},
    # "Expected '!' here" (ll:3202524, ll:3208420 are of this message): a definition's node
    "node-distinct-twice": "!0 = distinct distinct !{}\n!n = !{!0}\n",
    # and an attachment must be a node, not a string or a value
    **{f"attachment-{where}-{name}": text.replace("NODE", node)
       for where, text in {"instruction": "define void @f() {\n  ret void, !foo NODE\n}\n",
                           "global": "@g = global i32 0, !foo NODE\n",
                           "function": "define void @f() !foo NODE {\n  ret void\n}\n",
                           "declaration": "declare !foo NODE void @f()\n"}.items()
       for name, node in {"string": '!"x"', "value": "i32 0"}.items()},
    # ll:3209286: a musttail call hands the caller's frame over; LLVM wants it to fit
    **{f"musttail-{name}": MUSTTAIL.replace("CALLER", caller).replace("CALL", call)
       for name, (caller, call) in {
           "return-type": ("i64 @f(i32 %x)", "%r = musttail call i32 @g(i32 %x)\n"
                                              "  %z = zext i32 %r to i64\n  ret i64 %z"),
           "not-before-ret": ("i32 @f(i32 %x)", "%r = musttail call i32 @g(i32 %x)\n"
                                                "  %y = add i32 %r, 1\n  ret i32 %y"),
           "result-not-returned": ("i32 @f(i32 %x)", "%r = musttail call i32 @g(i32 %x)\n  ret i32 0"),
           "parameter-count": ("i32 @f()", "%r = musttail call i32 @g(i32 0)\n  ret i32 %r"),
           "calling-convention": ("fastcc i32 @f(i32 %x)", "%r = musttail call i32 @g(i32 %x)\n"
                                                           "  ret i32 %r"),
           "abi-attribute": ("i32 @f(i32 inreg %x)", "%r = musttail call i32 @g(i32 %x)\n  ret i32 %r"),
       }.items()},
    # ll:3400332 (campaign on be912e9): resume in a function without a personality; the
    # rules of LLVM's verifier for exception handling
    # ll:3301075 (campaign on 184dc17): allocsize naming parameters that are not there
    "allocsize-out-of-bounds": "declare ptr @f(i64) allocsize(1)\n",
    "allocsize-count-out-of-bounds": "declare ptr @f(i64, i64) allocsize(0, 2)\n",
    "allocsize-of-pointer": "declare ptr @f(ptr) allocsize(0)\n",
    "allocsize-on-call-through-group": "declare void @g()\ndefine void @f() {\n  call void @g() #0\n"
                                       "  ret void\n}\nattributes #0 = { allocsize(0) }\n",
    # ll:3400562 (campaign on be912e9): junk after an operation of an inline expression
    "expression-element-with-junk": DI + "declare void @g(metadata)\ndefine void @f() {\n"
                                    "  call void @g(metadata !DIExpression(DW_OP_LLVM_fragment%x 0, 8))\n"
                                    "  ret void\n}\n",
    "resume-without-personality": "define void @f(i32 %x) {\n  resume i32 %x\n}\n",
    "cleanuppad-without-personality": "define void @f() {\n  %p = cleanuppad within none []\n"
                                      "  cleanupret from %p unwind to caller\n}\n",
    "declaration-with-personality": "declare void @h() personality ptr null\n",
    **{f"landingpad-{name}": EH.replace("PERSONALITY", pers).replace("PAD", pad).replace("ENTRY", entry)
       for name, (pers, entry, pad) in {
           "without-personality": ("", EH_ENTRY, EH_PAD),
           "not-first": (EH_PERS, EH_ENTRY, "%z = add i32 0, 0\n  " + EH_PAD),
           "without-clause": (EH_PERS, EH_ENTRY, "%l = landingpad { ptr, i32 }"),
           "entered-by-branch": (EH_PERS, "br label %b", EH_PAD),
           "unwind-to-plain-block": (EH_PERS, "invoke void @g() to label %b unwind label %a", EH_PAD),
       }.items()},
    "landingpad-in-entry-block": "declare i32 @__gxx_personality_v0(...)\n"
                                 f"define void @f() {EH_PERS} {{\n  {EH_PAD}\n  ret void\n}}\n",
    "blockaddress-in-metadata-not-pointer": "define void @f() {\n  ret void\n}\n"  # ll:3403367
                                            "!0 = !{i64 blockaddress(@f, %0)}\n!n = !{!0}\n",
    "blockaddress-constant-not-pointer": "@g = global i64 blockaddress(@f, %b)\n"
                                         "define void @f() {\n  br label %b\nb:\n  ret void\n}\n",
    "range-pair-types": _RANGE % "i64 0, i32 5",  # ll:3403440
    "range-same-limits": _RANGE % "i32 5, i32 5",
    "range-contiguous": _RANGE % "i32 0, i32 5, i32 5, i32 10",
    "range-out-of-order": _RANGE % "i32 6, i32 10, i32 0, i32 5",
    "range-last-touches-first": _RANGE % "i32 -10, i32 -5, i32 0, i32 5, i32 7, i32 -10",
    "inlined-at-not-a-location": DI + "define void @f() !dbg !5 {\n  ret void, !dbg !6\n}\n"  # ll:3301917
                                 "!5 = distinct !DISubprogram(name: \"f\", unit: !0, spFlags: DISPFlagDefinition)\n"
                                 "!6 = !DILocation(line: 1, scope: !5, inlinedAt: !7)\n"  # llvm-as aborts
                                 "!7 = !DIGlobalVariableExpression(var: !8, expr: !DIExpression())\n"
                                 "!8 = distinct !DIGlobalVariable(name: \"g\", scope: !0, file: !1, line: 1, "
                                 "isLocal: true, isDefinition: true)\n",
    "asm-bad-constraint": _ASM % ("i32", "\\85r,0,rm,~{cc}", "i32 %a, i32 %b"),  # ll:3602955: failed to parse
    "asm-input-after-clobber": _ASM % ("void", "~{memory},r", "i32 %a"),
    "asm-inputs-not-parameters": _ASM % ("i32", "=r,r", "i32 %a, i32 %b"),
    "asm-trailing-comma": _ASM % ("i32", "=r,r,", "i32 %a"),
    "asm-match-missing-alternative": _ASM % ("{ i32, i32 }", "=r,=&r,0|r,{bx},~{memory}", "i32 %a, i32 %b"),
    "icmp-keyword-predicate": "define i1 @f(i32 %a) {\n  %r = icmp zeroinitializer i32 %a, 0\n  ret i1 %r\n}\n",  # ll:3604316
    "icmp-float-predicate": "define i1 @f(i32 %a) {\n  %r = icmp oeq i32 %a, 0\n  ret i1 %r\n}\n",
    "fcmp-integer-predicate": "define i1 @f(double %a) {\n  %r = fcmp sgt double %a, 0.0\n  ret i1 %r\n}\n",
    "ordering-without-atomic": _LOAD % "load i64, ptr %p seq_cst, align 8",  # ll:3701591
    "atomic-load-without-ordering": _LOAD % "load atomic i64, ptr %p, align 8",
    "atomic-load-without-align": _LOAD % "load atomic i64, ptr %p seq_cst",
    "atomic-load-release": _LOAD % "load atomic i64, ptr %p release, align 8",
    "atomic-store-acquire": "define void @f(ptr %p) {\n  store atomic i64 0, ptr %p acquire, align 8\n  ret void\n}\n",
    "argument-on-plain-attribute": CALL_G % "noundef(56)",  # ll:3702114
    "argument-on-plain-fn-attribute": "declare void @g() nounwind(1)\n",
    "ident-entry-not-string": '!llvm.ident = !{!0}\n!0 = !{!1}\n!1 = !{!"x"}\n',  # ll:3702974
    "ident-entry-two-strings": '!llvm.ident = !{!0}\n!0 = !{!"x", !"y"}\n',
    "commandline-entry-not-string": '!llvm.commandline = !{!0}\n!0 = !{i32 1}\n',
    "empty-loop-id": LOOP % ("!{}", ""),  # ll:3702503 (llvm-as crashes on it)
    "token-parameter": "declare i32 @setjmp(token)\n",  # ll:4101835
    "token-return": "declare token @g()\n",
    "metadata-parameter": "declare void @g(metadata)\n",
    "indirect-call-returning-token": "define void @f(ptr %p) {\n  %t = call token %p()\n  ret void\n}\n",
    "metadata-argument-to-non-intrinsic": "define void @f(ptr %p) {\n  call void %p(metadata !{})\n  ret void\n}\n",
    "atomicrmw-i1": ATOMIC % "atomicrmw or ptr %p, i1 false seq_cst, align 4",  # ll:4103907
    "atomicrmw-i24": ATOMIC % "atomicrmw add ptr %p, i24 0 seq_cst, align 4",
    "atomicrmw-add-float": ATOMIC % "atomicrmw add ptr %p, float 0.0 seq_cst, align 4",
    "atomicrmw-fadd-integer": ATOMIC % "atomicrmw fadd ptr %p, i32 0 seq_cst, align 4",
    "atomicrmw-xchg-vector": ATOMIC % "atomicrmw xchg ptr %p, <2 x i32> zeroinitializer seq_cst, align 8",
    "atomicrmw-xchg-x86-fp80": ATOMIC % "atomicrmw xchg ptr %p, x86_fp80 0xK00000000000000000000 seq_cst, align 16",
    "cmpxchg-float": ATOMIC % "cmpxchg ptr %p, float 0.0, float 1.0 seq_cst seq_cst, align 4",
    "cmpxchg-i24": ATOMIC % "cmpxchg ptr %p, i24 0, i24 1 seq_cst seq_cst, align 4",
    "atomic-load-struct": ATOMIC % "load atomic { i32 }, ptr %p seq_cst, align 8",
    "atomic-load-i1": ATOMIC % "load atomic i1, ptr %p seq_cst, align 4",
    "frame-pointer-value": 'define void @f() #0 {\n  ret void\n}\nattributes #0 = { "frame-pointer"="al)l" }\n',  # ll:4204213
    "warn-stack-size-value": 'define void @f() "warn-stack-size"="-1" {\n  ret void\n}\n',
    "denormal-fp-math-value": 'define void @f() "denormal-fp-math"="ieee,IEEE" {\n  ret void\n}\n',
    "no-nans-fp-math-value": 'define void @f() "no-nans-fp-math"="1" {\n  ret void\n}\n',
    "carriage-return-ends-comment": 'declare void @g() #0\n; Function Attrs: mustpr\r\rogress\nattributes #0 = { nounwind }\n',  # ll:4300048
    "decimal-x86-fp80": "@g = global x86_fp80 -5.000000e+00\n",  # ll:4500050
    "decimal-fp128": "@g = global fp128 1.0\n",
    "x86-fp80-literal-for-double": "@g = global double 0xK3FFF8000000000000000\n",
    "half-literal-for-float": "@g = global float 0xH3C00\n",
    "bfloat-literal-for-half": "@g = global half 0xR3F80\n",
    "nan-payload-lost-in-float": "@g = global float 0x7FF8000000000001\n",
    "inexact-bfloat": "@g = global bfloat 0x3FF0100000000000\n",
    "shuffle-mask-minus-one": SHUFFLE % "<2 x i32> <i32 4294967295, i32 0>",  # ll:4600308
    "shuffle-mask-out-of-range": SHUFFLE % "<2 x i32> splat (i32 9)",
    "shuffle-mask-i64": SHUFFLE % "<2 x i64> <i64 0, i64 1>",
    "shuffle-mask-not-constant": SHUFFLE % "<2 x i32> %m",
    "frame-pointer-without-value": 'define void @f() "frame-pointer" {\n  ret void\n}\n',  # ll:4600513
    "debug-record-after-terminator": ("define void @f() !dbg !4 {\n  br label %b\n    #dbg_value(i32 3, !5, !DIExpression(), !6)\n"
                                      "b:\n  ret void\n}\n" + DI + '!4 = distinct !DISubprogram(name: "f", scope: !1, file: !1, '
                                      'unit: !0, spFlags: DISPFlagDefinition)\n!5 = !DILocalVariable(name: "x", scope: !4)\n'
                                      "!6 = !DILocation(line: 1, scope: !4)\n"),  # ll:4601503
    "blockaddress-of-undefined": BLOCKADDRESS % "@g, %b",  # ll:4606556
    "blockaddress-of-variable": BLOCKADDRESS % "@x, %b",
    "blockaddress-of-undefined-block": BLOCKADDRESS % "@f, %zz",
    "blockaddress-of-entry-block": BLOCKADDRESS % "@f, %0",
    "blockaddress-of-declaration": '@x = global ptr blockaddress(@f, %b)\ndeclare void @f()\n',
    "nul-in-ifunc-name": ('@"r\\00b" = ifunc i32 (i32), ptr @resolver\n'
                          "define ptr @resolver() {\n  ret ptr null\n}\n"),  # ll:4607893
    "nul-in-alias-name": '@g = global i32 0\n@"a\\00b" = alias i32, ptr @g\n',
    "shuffle-label-mask": ("define void @f(<2 x float> %a) {\n  br label %b\nb:\n"
                           "  %r = shufflevector <2 x float> %a, <2 x float> %a, label %b\n  ret void\n}\n"),  # ll:4608788
    "gep-of-type-defined-later": ("define ptr @f(ptr %p) {\n  %q = getelementptr %T, ptr %p, i64 1\n  ret ptr %q\n}\n"
                                  "%T = type { i32 }\n"),  # ll:4700903
    "alloca-of-type-holding-later-type": ("%S = type { %T }\ndefine void @f() {\n  %q = alloca %S\n  ret void\n}\n"
                                          "%T = type { i32 }\n"),
    "load-of-type-defined-later": "define void @f(ptr %p) {\n  %q = load %T, ptr %p\n  ret void\n}\n%T = type { i32 }\n",
    "alloca-of-opaque": "%T = type opaque\ndefine void @f() {\n  %q = alloca %T\n  ret void\n}\n",
    "load-of-opaque": "%T = type opaque\ndefine void @f(ptr %p) {\n  %q = load %T, ptr %p\n  ret void\n}\n",
    "negative-global-align": '@s = private constant [2 x i8] c"a\\00", align -1\n',  # ll:5002616
    "lifetime-of-non-alloca": ("declare void @llvm.lifetime.start.p0(ptr)\ndefine void @f(ptr %p) {\n"
                               "  call void @llvm.lifetime.start.p0(ptr %p)\n  ret void\n}\n"),  # ll:4902429
    "datalayout-unknown-specifier": 'target datalayout = "e-m:e-\x80p272:64:64"\n',  # ll:5207612
    "datalayout-unknown-letter": 'target datalayout = "e-z8"\n',
    "negative-array-count": "@g = global [-1 x i8] zeroinitializer\n",  # ll:5209294
    "scope-decl-two-scopes": SCOPE_DECL % "!{!1, !1}",  # ll:5208647
    "scope-decl-not-a-node": SCOPE_DECL % '!"x"',
    "undefined-comdat": "declare void @llvm.memset.p0.i64(ptr, i8, i64, i1 immarg) comdat\n",  # ll:5109999
    "undefined-named-comdat": "@g = global i32 0, comdat($c)\n",
    "declaration-in-comdat": "$c = comdat any\ndeclare void @f() comdat($c)\n",
    "range-bound-too-wide": "declare void @g(i32 range(i32 18446744073709551616, -2147483648))\n",  # ll:5602490
    "range-empty-not-zero": "declare void @g(i8 range(i8 -1, 255))\n",
    "dereferenceable-zero": "declare void @g(ptr dereferenceable(0))\n",  # ll:5508306
    "dereferenceable-or-null-zero": "declare void @g(ptr dereferenceable_or_null(00))\n",
    "syncscope-two-strings": 'define void @f() {\n  fence syncscope("singlethread" "singlethread") acquire\n  ret void\n}\n',  # ll:5608885
    "datalayout-endianness-with-suffix": 'target datalayout = "e8-m:e"\n',  # ll:5700764
    "linkage-after-return-attribute": "declare noalias internal ptr @m(i64 noundef)\n",  # ll:7606625
    "linkage-after-calling-convention": "define fastcc internal void @f() {\n  ret void\n}\n",
    "calling-convention-after-return-attribute": "define noundef fastcc i32 @f() {\n  ret i32 0\n}\n",
    "internal-declaration": "declare internal void @f()\n",
    "weak-declaration": "declare weak void @f()\n",
    "common-function": "declare common void @f()\n",
    "shl-constant-expression": ("declare i32 @g(i32)\ndefine i32 @f(i32 %a) {\n"
                                "  %r = call i32 @g(i32 shl (i32 %a, i32 1))\n  ret i32 %r\n}\n"),  # ll:7205042
    "zext-constant-expression": "@g = global i32 0\n@x = global i64 zext (i32 ptrtoint (ptr @g to i32) to i64)\n",
    "fadd-constant-expression": "@x = global double fadd (double 1.0, double 2.0)\n",
    "local-in-constant-add": ("declare i32 @g(i32)\ndefine i32 @f(i32 %a) {\n"
                              "  %r = call i32 @g(i32 add (i32 1, i32 %a))\n  ret i32 %r\n}\n"),
    "datalayout-space-before-mangling": 'target datalayout = "e-m :e-i64:64"\n',  # ll:6901608
    "datalayout-empty-spec": 'target datalayout = "e--m:e"\n',
    "datalayout-unknown-mangling": 'target datalayout = "e-m:q"\n',
    "datalayout-sign-in-number": 'target datalayout = "e-i64:+64"\n',
    "datalayout-alignment-not-power-of-two-bytes": 'target datalayout = "e-S12"\n',
    "datalayout-preferred-below-abi": 'target datalayout = "e-i32:32:16"\n',
    "datalayout-i8-not-byte-aligned": 'target datalayout = "e-i8:16"\n',
    "datalayout-pointer-flag": 'target datalayout = "e-pf1:64:64"\n',
    "datalayout-unstable-address-space-0": 'target datalayout = "e-pu:64:64"\n',
    "datalayout-index-wider-than-pointer": 'target datalayout = "e-p:32:32:32:64"\n',
    "datalayout-function-pointer-type": 'target datalayout = "e-Fx8"\n',
    "datalayout-non-integral-0": 'target datalayout = "e-ni:1:0"\n',
    "empty-loop-id-node": LOOP % ("!1", "!1 = !{}\n"),
    "sret-type-with-stray-characters": "%struct.re = type { i32 }\n" + CALL_G % "sret(%struct.re@{cord)",  # ll:5906571
    "sret-undefined-type": CALL_G % "sret(%struct.nope)",
    "byval-undefined-type-in-aggregate": "declare void @g(ptr byval({ i32, [2 x %nope] }))\n",
    "byval-function-type": "declare void @g(ptr byval(i32 (i32)))\n",
    "byval-opaque-struct-at-a-call": "%O = type opaque\n" + CALL_G % "byval(%O)",
    "preallocated-label": "declare void @g(ptr preallocated(label))\n",
    "byref-two-types": "declare void @g(ptr byref(i32 i32))\n",
    "target-line-after-module-asm": 'module asm "x:"\ntarget triple = "x86_64-pc-linux-gnu"\n',  # ll:6509847
    "atomicrmw-lshr": ATOMIC % "atomicrmw lshr ptr %p, i32 1 release, align 4",  # ll:6507442
    "control-character-before-closing-brace": FN.replace("}", "\x01}"),  # ll:6309251
    "control-character-on-its-own-line": FN.replace("}", "\x01\n}"),
    "true-as-wider-integer-in-metadata": '!0 = !{i32 7, !"x", i65536 true}\n!llvm.x = !{!0}\n',  # ll:6313273
    # Attributes taken together (verify_attribute_lists.py), LLVM's verifier rules:
    "byval-with-nest": "declare void @g(ptr byval(i32) nest %a)\n",
    "inalloca-readonly": "declare void @g(ptr inalloca(i32) readonly %a)\n",
    "zeroext-signext": "declare void @g(i32 zeroext signext %a)\n",
    "readonly-writeonly": "declare void @g(ptr readonly writeonly %a)\n",
    "writable-readonly": "declare void @g(ptr writable readonly %a)\n",
    "immarg-outside-intrinsics": "declare void @g(i32 immarg %a)\n",
    "two-nest-parameters": "declare void @g(ptr nest %a, ptr nest %b)\n",
    "sret-on-third-parameter": "declare void @g(i32 %a, i32 %b, ptr sret(i32) %c)\n",
    "sret-function-returns-a-value": "define i32 @g(ptr sret(i32) %a) {\n  ret i32 0\n}\n",
    "two-sret-arguments-at-a-call": CALL_G % "sret(i32) %p, ptr sret(i32)",
    "sret-vararg-argument": ("declare void @h(...)\ndefine void @f(ptr %p) {\n"
                             "  call void (...) @h(ptr sret(i32) %p)\n  ret void\n}\n"),
    "inalloca-not-last": "declare void @g(ptr inalloca(i32) %a, i32 %b)\n",
    "returned-type-mismatch": "declare ptr @g(i32 returned %a)\n",
    "swiftself-twice": "declare void @g(ptr swiftself %a, ptr swiftself %b)\n",
    "nest-on-return": "declare nest ptr @g()\n",
    "noinline-alwaysinline-through-group": "declare void @g() noinline #0\nattributes #0 = { alwaysinline }\n",
    "optnone-without-noinline": "define void @f() #0 {\n  ret void\n}\nattributes #0 = { optnone }\n",
    "writable-memory-read": "declare void @g(ptr writable %a) memory(read)\n",
    "jumptable-without-unnamed-addr": "declare void @g() jumptable\n",
    "allockind-alloc-and-free": 'declare ptr @g(i64) allockind("alloc,free")\n',
    "vscale-range-not-power-of-two": "declare void @g() vscale_range(3, 4)\n",
    "initializes-overlapping": "declare void @g(ptr initializes((0, 4), (2, 8)) %a)\n",
    "initializes-empty-range": "declare void @g(ptr initializes((4, 4)) %a)\n",
    "short-vector-constant-as-metadata": ("declare void @llvm.foo(metadata)\ndefine void @f() {\n"
                                          "  call void @llvm.foo(metadata <4 x double> <double 1.5, double 2.5>)\n"
                                          "  ret void\n}\n"),  # ll:6701912 (in a #dbg_value)
    "short-vector-constant-in-debug-record": (
        "define void @f() !dbg !4 {\n    #dbg_value(<4 x double> <double 1.5, double 2.5>, !5, !DIExpression(), !6)\n"
        "  ret void\n}\n" + DI + '!4 = distinct !DISubprogram(name: "f", scope: !1, file: !1, '
        'unit: !0, spFlags: DISPFlagDefinition)\n!5 = !DILocalVariable(name: "x", scope: !4)\n'
        "!6 = !DILocation(line: 1, scope: !4)\n"),  # ll:6701912
    "short-vector-constant-in-node": "!0 = !{<4 x i32> <i32 1, i32 2>}\n",
}

VALID = {
    "supported-constant-expressions": (
        "@g = global i32 0\n@a = global i64 add (i64 ptrtoint (ptr @g to i64), i64 8)\n"
        "@b = global i64 sub (i64 ptrtoint (ptr @g to i64), i64 8)\n@c = global i64 xor (i64 ptrtoint (ptr @g to i64), i64 -1)\n"
        "@d = global i16 trunc (i64 ptrtoint (ptr @g to i64) to i16)\n@e = global ptr inttoptr (i64 64 to ptr)\n"
        "@h = global ptr addrspacecast (ptr addrspace(1) null to ptr)\n"
        "@k = global i32 extractelement (<2 x i32> <i32 1, i32 ptrtoint (ptr @g to i32)>, i32 1)\n"),
    "datalayouts-of-other-targets": ('target datalayout = "e-m:e-p:32:32-Fi8-i64:64-v128:64:128-a:0:32-n32-S64-s0:64-'
                                     'pu1:64:64-pe2:64:64:64:32-p7:160:256:256:32-ni:1:7-A5-G1-P0-m:a"\n'),
    "subprogram-without-type": '!0 = !DISubprogram(name: "f", spFlags: 0)\n!1 = !DISubprogram(name: "g", type: null, spFlags: 0)\n!n = !{!0, !1}\n',
    "attribute-arguments": CALL_G % "noundef dereferenceable(8) align(16)",
    "ident-and-commandline": '!llvm.ident = !{!0}\n!llvm.commandline = !{!0}\n!0 = !{!"clang"}\n',
    "align-paren-spelling": "define void @f(ptr align(8) %p) align(16) {\n  ret void\n}\n",
    "token-intrinsic": "declare token @llvm.experimental.convergence.entry()\n",
    "metadata-in-varargs": 'declare double @__enzyme_fwdsplit(...)\ndefine double @f(ptr %g) {\n'
                           '  %r = call double (...) @__enzyme_fwdsplit(ptr %g, metadata !"enzyme_nofree")\n'
                           '  ret double %r\n}\n',
    "atomic-accesses": ATOMIC % ("atomicrmw fadd ptr %p, <2 x float> zeroinitializer seq_cst, align 8\n"
                                 "  %s = load atomic <2 x i32>, ptr %p seq_cst, align 8\n"
                                 "  %t = cmpxchg ptr %p, ptr null, ptr null seq_cst seq_cst, align 8\n"
                                 "  %u = atomicrmw fmaximum ptr %p, double 0.0 seq_cst, align 8"),
    "known-string-attribute-values": ('define void @f() #0 {\n  ret void\n}\nattributes #0 = { "frame-pointer"="non-leaf" '
                                      '"warn-stack-size"="01" "denormal-fp-math"="preserve-sign," "no-nans-fp-math"="" }\n'),
    "carriage-returns-as-whitespace": '; c\r\r@x = global i32 0\n\r\n@y = global i32 1\r\n',
    "float-literals": ("@a = global float 0x7FF0000020000000\n@b = global half 0x7FF0040000000000\n"
                       "@c = global bfloat 1.5\n@d = global x86_fp80 0xK3FFF8000000000000000\n"
                       "@e = global fp128 0xL00000000000000003FFF000000000000\n"),
    "shuffle-masks": SHUFFLE % "<2 x i32> <i32 3, i32 poison>",
    "blockaddresses": BLOCKADDRESS % "@f, %b" + '@y = global [1 x ptr] [ptr blockaddress(@"f", %"b")]\n',
    "type-defined-later-behind-pointer": ("define ptr @f(ptr %p) {\n  %q = getelementptr { ptr }, ptr %p, i64 1\n"
                                          "  %r = getelementptr %T, ptr %p\n  ret ptr %q\n}\n%T = type { i32 }\n"),
    "lifetime-of-alloca-and-poison": ("declare void @llvm.lifetime.start.p0(ptr)\ndeclare void @llvm.lifetime.end.p0(ptr)\n"
                                      "define void @f() {\n  %a = alloca i32\n  call void @llvm.lifetime.start.p0(ptr %a)\n"
                                      "  call void @llvm.lifetime.end.p0(ptr poison)\n  ret void\n}\n"),
    "scope-decl": SCOPE_DECL % "!{!1}",
    "comdats": ('$f = comdat any\n$"a b" = comdat any\n@g = global i32 0, comdat($"a b")\n'
                "define void @f() comdat {\n  ret void\n}\n"),
    "range-bounds": "declare void @g(i32 range(i32 4294967295, 3), i8 range(i8 -1, 0), i1 range(i1 1, 0))\n",
    "loop-id": LOOP % ("!1", "!1 = distinct !{!1}\n"),
    "loop-id-not-self": LOOP % ("!1", "!1 = !{!\"x\"}\n"),
    "raw-nul-in-string": '@s = constant [3 x i8] c"a\0b"\n',
    "non-utf8-string-and-name": '@"n\xff\xfe" = constant [2 x i8] c"\xff\x80"\n',
    "escaped-bytes": '@"q\\01\\FFname" = global i32 0\n@t = constant [3 x i8] c"\\FF\\80\\00"\n',
    "group-over-lines": FN.replace("@f()", "@f() #0") + "attributes #0 = { noinline\n"
                                                         "  nounwind \"a\"=\"b\" }\n",
    "blank-after-carriage-return-in-comment": "; a comment\r  \n" + FN + "; b\r; c\n",
    "alias-scopes": "define void @f(ptr %p) {\n  store i32 0, ptr %p, !alias.scope !0, !noalias !3\n"
                    "  ret void\n}\n!0 = !{!1}\n!1 = distinct !{!1, !2, !\"f: p\"}\n"
                    "!2 = distinct !{!2, !\"f\"}\n!3 = !{!4}\n!4 = distinct !{!4, !2}\n",
    "stray-nul-between-entities": "@a = global i32 0\n\0\n@b = global i32 1\n",
    "typed-tuple-operands": "!0 = !{float 1.5, ptr null, i64 ptrtoint (ptr @g to i64)}\n"
                            "@g = global i32 0\n!named = !{!0}\n",
    "exact-floats": "@a = global float 0.5\n@b = global float 0x3FB99999A0000000\n"
                    "@c = global half 1.5\n@d = global double 0.1\n",
    "module-asm-anywhere": '@g = global i32 0\nmodule asm "nop"\n',
    "undefined-group": "declare void @f() #4\n",  # LLVM takes it as an empty group
    "debug-info": DI + "!4 = !DIBasicType(name: \"int\", size: 32, encoding: DW_ATE_signed)\n",
    "errno-tbaa": '!llvm.errno.tbaa = !{!0}\n!0 = !{!1, !1, i64 0}\n!1 = !{!"int", !2, i64 0}\n'
                  '!2 = !{!"omnipotent char", !3, i64 0}\n!3 = !{!"Simple C/C++ TBAA"}\n',
    "none-token": "declare token @llvm.foo(token)\ndefine void @f() {\n"
                  "  %t = call token @llvm.foo(token none)\n  ret void\n}\n",
    "gep-forms": "%s = type { i32, [4 x <2 x float>] }\n%o = type opaque\n@g = global %s zeroinitializer\n"
                 "@h = global ptr getelementptr inbounds (%s, ptr @g, i8 0, i32 1, i3 2, i1 1)\n"
                 "define void @f(ptr %p, <2 x ptr> %v, i7 %i, <2 x i64> %j) {\n"
                 "  %a = getelementptr %s, ptr %p, i7 %i, i32 1, i7 %i, i64 1\n"
                 "  %b = getelementptr %s, <2 x ptr> %v, i64 0, <2 x i32> splat (i32 1), <2 x i64> %j\n"
                 "  %c = getelementptr %s, ptr %p, <2 x i64> %j, <2 x i32> zeroinitializer\n"
                 "  %d = getelementptr %s, ptr %p, i64 0, <2 x i32> <i32 1, i32 1>, i64 3\n"
                 "  %e = getelementptr i8, ptr %p\n"
                 "  %f = getelementptr %s, ptr %p, i64 0, i32 zeroinitializer\n"
                 "  %g = getelementptr <4 x float>, ptr %p, i64 0, i64 -1\n"
                 "  ret void\n}\n",
    "global-words": '@a = private unnamed_addr constant i32 0\n'
                    "@b = internal thread_local(initialexec) global i32 0, align 4\n"
                    '@c = dso_local hidden externally_initialized global i32 0, section "s", '
                    'code_model "large", no_sanitize_address\n'
                    "@d = weak_odr dso_local dllexport local_unnamed_addr addrspace(1) global i32 0\n"
                    "@e = external dllimport global i32\n@f = internal alias i32, ptr @a\n"
                    "define linkonce_odr dso_local protected void @g() {\n  ret void\n} ; end\n",
    "tbaa-struct-paths": _tbaa("!{!4, !3, i64 8}", "!{!5, !3, i64 16}", "!{!5, !2, i64 8}",
                               "!{!2, !2, i64 0, i64 1}", "!{!\"int\", !1}"),
    "tbaa-size-aware": "define void @f(ptr %p) {\n  %a = load float, ptr %p, !tbaa !4\n"  # -new-struct-path-tbaa
                       "  %b = load i32, ptr %p, !tbaa !5\n  %c = load float, ptr %p, !tbaa !6\n  ret void\n}\n"
                       '!0 = !{!"Simple C/C++ TBAA"}\n!1 = !{!0, i64 1, !"omnipotent char"}\n'
                       '!2 = !{!1, i64 4, !"int"}\n!3 = !{!1, i64 4, !"float"}\n'
                       '!7 = !{!1, i64 16, !"A", !2, i64 0, i64 4, !3, i64 4, i64 12}\n'
                       "!4 = !{!7, !3, i64 4, i64 4}\n!5 = !{!2, !2, i64 0, i64 4, i64 1}\n"
                       "!6 = !{!3, !3, i64 0, i64 4, i64 0}\n",
    "aggregate-types": "%t = type { [18446744073709551615 x i8], [0 x i8], <2 x ptr>, "
                       "<vscale x 2 x i64>, [2 x <vscale x 2 x i64>], <2 x x86_fp80> }\n",
    "typed-attributes": "declare range(i32 0, 10) i32 @f(ptr nonnull align 8 dereferenceable(8), "
                        "i8 signext, <2 x i32> range(i32 0, 4), float nofpclass(nan), "
                        "<2 x ptr> align 8, [2 x double] nofpclass(inf))\n"
                        'define void @g() #0 {\n  ret void\n}\nattributes #0 = { "target-features"="+sse2,-avx" }\n',
    "numbered-calling-convention": "declare cc252 void @g()\ndefine cc252 void @f() {\n"  # bc:3004651
                                   "  call cc252 void @g()\n  ret void\n}\n",
    "flags-in-place": "define i1 @f(i32 %x, i64 %w) {\n  %a = add nuw nsw i32 %x, 1\n"
                      "  %b = udiv exact i32 %a, 2\n  %c = or disjoint i32 %b, 1\n"
                      "  %d = zext nneg i32 %c to i64\n  %e = trunc nuw nsw i64 %w to i32\n"
                      "  %f = uitofp nneg i32 %e to double\n  %g = shl nuw i32 %c, 1\n"
                      "  %h = lshr exact i32 %g, 1\n  %i = icmp samesign ult i32 %h, %e\n  ret i1 %i\n}\n",
    "module-flags": "!llvm.module.flags = !{!0, !1, !2, !3, !4, !5}\n"
                    '!0 = !{i32 1, !"wchar_size", i32 4}\n!1 = !{i32 3, !"r", !6}\n'
                    '!2 = !{i32 3, !"r", !6}\n!3 = !{i32 6, !"a", !{!"x"}}\n'
                    '!4 = !{i32 8, !"m", i32 0}\n!5 = !{i32 4, !"o", float 1.0}\n'
                    '!6 = !{!"wchar_size", i32 4}\n',
    "intrinsic-lists": FN + "@x = global i32 0\n@e = external global [1 x ptr]\n"
                       '@llvm.used = appending global [2 x ptr] [ptr @x, ptr @f], section "llvm.metadata"\n'
                       "@llvm.compiler.used = external global [1 x ptr]\n"
                       "@llvm.global_ctors = appending global [1 x { i32, ptr, ptr }] "
                       "[{ i32, ptr, ptr } { i32 65535, ptr @f, ptr null }]\n",
    "prof-forms": "declare void @g()\ndefine i32 @f(i1 %c, i32 %x) personality ptr null {\n"
                  "  br i1 %c, label %a, label %b, !prof !0\na:\n"
                  "  %s = select i1 %c, i32 1, i32 2, !prof !1\n  call void @g(), !prof !2\n"
                  "  call void @g(), !prof !3\n  call void @g(), !prof !4\n"
                  "  switch i32 %x, label %b [ i32 1, label %b ], !prof !5\n"
                  "b:\n  invoke void @g() to label %d unwind label %l, !prof !0\n"
                  "l:\n  %p = landingpad { ptr, i32 } cleanup\n  br label %d, !prof !6\nd:\n  ret i32 0\n}\n"
                  '!0 = !{!"branch_weights", !"expected", i32 1, i64 2}\n!1 = !{!"branch_weights", i1 1, i32 0}\n'
                  '!2 = !{!"VP", i32 0, i64 10, i64 123, i64 10}\n!3 = !{!"unknown", !"pass"}\n'
                  '!4 = !{!"branch_weights", i32 7}\n!5 = !{!"branch_weights", i32 1, i32 2}\n'
                  '!6 = !{!"VP", i32 2, i64 1, i64 2, i64 3}\n',
    "threadlocal-address": TLS.replace("OPERAND", "@t"),
    "threadlocal-address-of-tls-alias": TLS.replace("OPERAND", "@b"),
    "header-in-order": "$c = comdat any\ndefine void @c() local_unnamed_addr addrspace(0) nounwind "
                       '"a"="b" align 2 #0 section "s" partition "p" comdat($c) align 4 gc "g" '
                       "prefix i32 1 prologue i32 2 personality ptr null !foo !{} !bar !{} {\n"
                       "  ret void\n}\n",
    "musttail": "declare ptr @g(ptr, i32)\ndeclare tailcc void @t(i32, i32)\n"
                "define ptr @f(ptr byval(i32) align 4 %p, i32 zeroext %x) {\n"
                "  %r = musttail call ptr @g(ptr byval(i32) align 4 %p, i32 %x)\n"
                "  %b = bitcast ptr %r to ptr\n  ret ptr %b\n}\n"
                "define tailcc void @h(i32 %x) {\n  musttail call tailcc void @t(i32 %x, i32 1)\n"
                "  ret void\n}\n",
    "allocsize": "declare ptr @f(i64, i32) allocsize(0, 1)\ndeclare ptr @g(i8) #0\n"
                 "attributes #0 = { allocsize(0) }\n",
    "exception-handling": EH.replace("PERSONALITY", EH_PERS).replace("ENTRY", EH_ENTRY)
                            .replace("PAD", EH_PAD.replace("cleanup", "catch ptr null")),
    "windows-exception-handling": "declare void @g()\ndeclare i32 @__CxxFrameHandler3(...)\n"
                                  "define void @f() personality ptr @__CxxFrameHandler3 {\n"
                                  "  invoke void @g() to label %e unwind label %d\nd:\n"
                                  "  %cs = catchswitch within none [label %h] unwind to caller\nh:\n"
                                  "  %p = catchpad within %cs []\n  catchret from %p to label %e\ne:\n"
                                  "  ret void\n}\n",
    "range-forms": _RANGE % "i32 -10, i32 -5, i32 0, i32 5, i32 7, i32 -11",
    "asm-constraint-forms": _ASM % ("{ i32, i32 }", "=r|m,=&r,0|r,{bx},~{memory},~{dirflag}", "i32 %a, i32 %b"),
    "fcmp-true-false": "define i1 @f(double %a) {\n  %r = fcmp true double %a, 0.0\n"
                       "  %s = fcmp false double %a, 0.0\n  %t = and i1 %r, %s\n  ret i1 %t\n}\n",
    "atomic-loads": _LOAD % 'load atomic volatile i64, ptr %p syncscope("singlethread") acquire, align 8',
    "type-attribute-arguments": ('%"q T" = type { i8 }\ndeclare void @h(ptr byval(%L), ptr byref(<{ i8, i32 }>))\n'
                                 + CALL_G % 'sret({ [4 x %"q T"], <2 x float>, ptr addrspace(1) })'
                                 + "%L = type { double }\n"),
    "control-character-in-comment-and-string": ('define void @f() {\n  ret void ; \x01\n}\n'
                                                '!0 = !{!"\x01", i1 true, i8 -129}\n!llvm.x = !{!0}\n'),
    "attribute-lists": ("declare ptr @h(...)\ndeclare ptr @r(ptr returned)\ndeclare void @g(ptr sret(i32) inreg %a, "
                        "ptr writable initializes((0, 4), (5, 8)) %c, ptr inalloca(i32) %d) "
                        "memory(argmem: write) allockind(\"alloc,zeroed\") vscale_range(2, 0)\n"
                        "declare noext noundef i32 @k(i32 zeroext) unnamed_addr jumptable\n"
                        "define void @f(ptr %p) #0 {\n  %q = call ptr (...) @h(ptr returned %p, ptr nest %p)\n"
                        "  ret void\n}\nattributes #0 = { noinline optnone }\n"),
    "sret-of-unsized-types": ("%O = type opaque\ndeclare void @g(ptr sret(%O))\n"
                              "declare void @h(ptr sret(label))\ndeclare void @k(ptr sret(metadata))\n"),
}


def _llvm_accepts(text: bytes, tmp_path: Path) -> bool:
    path = tmp_path / "in.ll"
    path.write_bytes(text)
    return subprocess.run(["llvm-as-22", str(path), "-o", "/dev/null"],
                          capture_output=True).returncode == 0


def _enzc(text: bytes) -> str:
    module = parse_module(text.decode("utf-8", "surrogateescape"), lazy=False)
    verify_module(module, materialize=True)
    return print_module(module)


@pytest.mark.parametrize("name", sorted(INVALID))
def test_invalid_ir_is_rejected_like_llvm(name: str, tmp_path: Path) -> None:
    text = INVALID[name].encode("utf-8", "surrogateescape")
    assert not _llvm_accepts(text, tmp_path), "the case must be invalid for LLVM too"
    with pytest.raises(EnzcError):
        _enzc(text)


@pytest.mark.parametrize("name", sorted(VALID))
def test_valid_ir_is_accepted_and_printed_valid(name: str, tmp_path: Path) -> None:
    text = VALID[name].encode("latin-1") if "\xff" in VALID[name] else VALID[name].encode()
    assert _llvm_accepts(text, tmp_path)
    printed = _enzc(text).encode("utf-8", "surrogateescape")
    assert _llvm_accepts(printed, tmp_path), printed.decode("utf-8", "replace")


def _llvm_text(text: bytes, tmp_path: Path) -> str:
    """llvm-dis of llvm-as of `text`: LLVM's own reading of it."""
    path = tmp_path / "rt.ll"
    path.write_bytes(text)
    done = subprocess.run(f"llvm-as-22 {path} -o - | llvm-dis-22 -o -", shell=True,
                          capture_output=True, check=True)
    return done.stdout.decode("utf-8", "replace").split("\n", 1)[1]


@pytest.mark.parametrize("group", [
    'attributes #0 = { nounwind "target-features"="+sse,+\n\tsse2" }\n',  # ll:3202218
    'attributes #0 = { nounwind "targe\n-features"="+sse"\n  "b"="c" }\n',  # ll:3207573
])
def test_line_break_inside_a_group_string_is_kept(group: str, tmp_path: Path) -> None:
    """A raw line break inside a string of an attribute group is part of the string for
    LLVM; enzc.ir used to print it as a space (a different attribute)."""
    text = (FN.replace("@f()", "@f() #0") + group).encode()
    printed = _enzc(text).encode()
    assert _llvm_text(printed, tmp_path) == _llvm_text(text, tmp_path)


def test_undeclared_intrinsic_stays_undeclared(tmp_path: Path) -> None:
    """LLVM renames an undeclared intrinsic called under a wrong name by its types and
    keeps the call's `tail`; declared, the call is replaced without it (ll:6505862)."""
    text = (b"define i8 @f(i8 %x) {\n  %r = tail call i8 @llvm.bitreverse.i2147483648(i8 %x)\n"
            b"  ret i8 %r\n}\n")
    printed = _enzc(text).encode()
    assert b"declare" not in printed
    assert _llvm_text(printed, tmp_path) == _llvm_text(text, tmp_path)


def test_deep_nesting_is_a_clean_error(tmp_path: Path) -> None:
    depth = 3000
    text = ("@g = global " + "[1 x " * depth + "i8" + "]" * depth + " zeroinitializer\n").encode()
    path = tmp_path / "deep.ll"
    path.write_bytes(text)
    done = subprocess.run([sys.executable, "-m", "enzc.ir", str(path), "-o",
                           str(tmp_path / "out.ll")], capture_output=True, text=True)
    assert done.returncode == 1 and "nested too deeply" in done.stderr
    assert "Traceback" not in done.stderr and not (tmp_path / "out.ll").exists()


def test_cli_reports_verifier_findings_per_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.ll"
    path.write_text("declare void @f() bogusattr\n@g = global i32 0, align 3\n")
    done = subprocess.run([sys.executable, "-m", "enzc.ir", str(path)], capture_output=True,
                          text=True)
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr.splitlines() == [
        f"{path}: error: @f: unknown attribute 'bogusattr'",
        f"{path}: error: @g: alignment 3 is not a power of two"]


def _disassembled(text: bytes, tmp_path: Path) -> str:
    done = subprocess.run(["llvm-as-22", "-", "-o", "-"], input=text, capture_output=True, check=True)
    dis = subprocess.run(["llvm-dis-22", "-", "-o", "-"], input=done.stdout, capture_output=True, check=True)
    return dis.stdout.decode().split("\n", 1)[1]  # without the ModuleID line


def test_line_break_inside_a_metadata_string_is_kept(tmp_path: Path) -> None:
    """An indented line continues the node above; inside a string its line break and
    indentation are part of the string (fuzz case ll:1001564 printed "omnipotent char")."""
    text = b'!n = !{!0, !2}\n!0 = !{!"omnipotent\n  char", !1}\n!1 = !{!"x"}\n!2 = !{!"a",\n  !"b"}\n'
    printed = _enzc(text).encode()
    assert b'!"omnipotent\\0A  char"' in printed
    assert _disassembled(printed, tmp_path) == _disassembled(text, tmp_path)


def test_bitcode_error_quoting_non_utf8_bytes_is_a_clean_error(monkeypatch: pytest.MonkeyPatch) -> None:
    """bc:3003587: LLVM's message about corrupted bitcode quoted a byte that is not
    UTF-8, llvmlite failed to decode it (UnicodeDecodeError), and enzc.ir reported an
    internal error. The message is LLVM's bytes, kept readable."""
    import llvmlite.binding as llvm

    from enzc.ir.bitcode import _disassemble
    from enzc.lto.irmodule import IRError
    from enzc.lto.irmodule import parse_module as lto_parse_module

    message = b"LLVM bitcode parsing error\nunknown specifier '\xf3'"

    def undecodable(*args: object, **kwargs: object) -> None:
        raise UnicodeDecodeError("utf-8", message, message.index(b"\xf3"), message.index(b"\xf3") + 1,
                                 "invalid continuation byte")

    monkeypatch.setattr(llvm, "parse_bitcode", undecodable)
    assert _disassemble(b"BC\xc0\xde") == ("", "unknown specifier '\\xf3'")
    with pytest.raises(IRError, match=r"invalid LLVM IR: unknown specifier '\\xf3'"):
        lto_parse_module(b"BC\xc0\xde", "m.o")


def test_bitcode_asking_for_unbounded_memory_is_a_clean_error(tmp_path: Path) -> None:
    """bc:3002812 (a mutated seed bitcode): LLVM reading it allocates without bound
    (llvm-dis-22 runs out of memory too); enzc.ir's reader grew past 9 GB and was
    killed as a hang. The reader's memory is capped: a clean error, quickly."""
    case = Path(__file__).parent / "fuzz_cases" / "bc-3002812.bc"
    out = tmp_path / "out.ll"
    done = subprocess.run([sys.executable, "-m", "enzc.ir", str(case), "-o", str(out)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 1, done.stderr
    assert "error: LLVM failed while reading the bitcode: out of memory" in done.stderr
    assert "Traceback" not in done.stderr and not out.exists()


def test_isolated_child_memory_is_capped() -> None:
    from enzc.isolation import ChildInternalError, run_isolated

    with pytest.raises(ChildInternalError, match="MemoryError"):
        run_isolated(lambda: len(bytearray(4 << 30)), memory_limit=256 << 20)
    assert run_isolated(lambda: len(bytearray(1 << 20)), memory_limit=256 << 20) == 1 << 20


def test_non_utf8_global_name_is_read_by_enzcc() -> None:
    """obj:3200715: a mutated object named a function `@"n\\80rm2"`; enzcc's check for
    `__enzyme_` names crashed decoding it (llvmlite's `.name` is strict UTF-8)."""
    from enzc.frontend.middle import names_entry_points
    from enzc.lto.irmodule import module_symbols, parse_module as parse_llvm

    module = parse_llvm(b'define void @"n\\80rm2"() {\n  ret void\n}\n', "case")
    assert not names_entry_points(module)
    assert module_symbols(module).defined == frozenset({"n\udc80rm2"})


@pytest.mark.parametrize("triple, valid", [("x86_68-unknown-linux-gnu", False), ("x86", False),
                                           ("x86_64-pc-linux-gnu", True), ("unknown", True),
                                           ("thumbv7em-none-eabi", True),
                                           # bc:3304493: bytes that are not UTF-8 (an internal error before)
                                           ("x86\\AD_64-pc-linux-gnu", False), ("x86_64-p\\ADc-linux-gnu", True)])
def test_target_triple_architecture_like_opt(triple: str, valid: bool, tmp_path: Path) -> None:
    """bc:3012897: llvm-as keeps any triple, but opt-22 (like llc and clang) rejects a
    module whose architecture LLVM's triple parser does not know; enzc.ir does too."""
    text = f'target triple = "{triple}"\n'
    path = tmp_path / "in.ll"
    path.write_text(text)
    opt = subprocess.run(["opt-22", "-passes=verify", "-disable-output", str(path)], capture_output=True)
    assert (opt.returncode == 0) == valid, "the expectation must be opt-22's"
    if valid:
        _enzc(text.encode())
    else:
        with pytest.raises(EnzcError, match="unrecognized architecture"):
            _enzc(text.encode())


def test_non_utf8_triple_in_linked_bitcode_is_a_clean_error() -> None:
    """obj:4102873: a mutated object's bitcode named the triple `x86_64-pc-linux-g\\xee`;
    reading it through llvmlite's strict `.triple` was an internal error."""
    from enzc.frontend.passes import _target_machine
    from enzc.lto.irmodule import module_triple, parse_module as parse_llvm

    module = parse_llvm(b'target triple = "x86_64-pc-linux-g\\EE"\n', "case")
    assert module_triple(module) == "x86_64-pc-linux-g\udcee"
    with pytest.raises(EnzcError, match=r"triple 'x86_64-pc-linux-g\\xee'"):
        _target_machine(module)
