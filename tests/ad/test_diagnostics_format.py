"""How AD errors show the offending instruction and function (`ad/diagnostics.py`)."""

from __future__ import annotations

import shutil

import pytest

from enzc.ad.diagnostics import format_error, readable_name
from enzc.ir.parser import parse_module

INVOKE = """
declare ptr @_Z4makev()
declare i32 @__gxx_personality_v0(...)

define ptr @_Z3usev() personality ptr @__gxx_personality_v0 {
entry:
  %p = invoke ptr @_Z4makev() to label %ok unwind label %bad, !md !0
ok:
  ret ptr %p
bad:
  %lp = landingpad { ptr, i32 } cleanup
  resume { ptr, i32 } %lp
}
!0 = !{}
"""


def test_invoke_is_shown_on_one_line_without_attachments() -> None:
    module = parse_module(INVOKE)
    fn = module.get_function("_Z3usev")
    invoke = fn.entry.instructions[0]
    text = format_error(module, invoke, "_Z3usev", "cannot differentiate this", "do that")
    lines = text.splitlines()
    assert lines[0] == "error: enzc: cannot differentiate this"
    assert lines[1].endswith("%p = invoke ptr @_Z4makev() to label %ok unwind label %bad"), lines[1]
    assert lines[2] == "hint: do that"
    assert "compile with -g" in lines[3]  # no !dbg: say how to get the source line


@pytest.mark.skipif(shutil.which("llvm-cxxfilt-22") is None and shutil.which("c++filt") is None,
                    reason="no C++ demangler installed")
def test_cxx_names_are_demangled() -> None:
    assert readable_name("_ZN3foo3barEv") == "foo::bar()"
    assert readable_name("plain_c_name") == "plain_c_name"
    assert readable_name("_Znot_really_mangled!") == "_Znot_really_mangled!"
