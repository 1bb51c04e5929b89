"""Structural edits: split_block, split_edge, clone_function/clone_into and
remove_unreachable_blocks keep the IR valid and the original untouched."""

import pytest

from enzc.ir.builder import IRBuilder
from enzc.ir.instructions import Br, DebugRecord, Phi
from enzc.ir.metadata import MDRaw, MDRef, MDSpecialized, MDTuple, MDValue
from enzc.ir.module import Module
from enzc.ir.transforms import (
    clone_function,
    clone_instruction,
    clone_into,
    remove_unreachable_blocks,
    split_block,
    split_edge,
)
from enzc.ir.types import DOUBLE, I32, I64, METADATA, PTR, FunctionType
from enzc.ir.values import ConstantFP, ConstantInt, MetadataOperand, User
from enzc.ir.verifier import verify_function


def switchy():
    """double f(i32 k, double x, ptr p): a switch with two cases to %join (two
    edges, two phi entries) and default %a, a dbg attachment and a debug record."""
    m = Module()
    fn = m.add_function("f", FunctionType(DOUBLE, (I32, DOUBLE, PTR)))
    for a, name in zip(fn.args, ("k", "x", "p")):
        a.name = name
    fn.header_suffix = ["comdat", "align 16"]
    fn.metadata["dbg"] = MDRef("3")
    fn.blocks = []
    b = IRBuilder(fn.append_block("entry"))
    a, j = b.append_block("a"), b.append_block("join")
    sq = b.fmul(fn.args[1], fn.args[1], "sq")
    sq.metadata["dbg"] = MDRef("7")
    b.switch(fn.args[0], a, [(1, j), (2, j)])
    b.position_at_end(a)
    y = b.fadd(sq, sq, "y")
    y.debug_records.append(DebugRecord("value", [MetadataOperand(METADATA, MDValue(sq)),
                                                 MetadataOperand(METADATA, MDRef("9")),
                                                 MetadataOperand(METADATA, MDRaw("!DIExpression()"))]))
    b.br(j)
    b.position_at_end(j)
    r = b.phi(DOUBLE, [(sq, fn.entry), (sq, fn.entry), (y, a)], "r")
    b.store(r, fn.args[2])
    b.ret(r)
    verify_function(fn)
    return m, fn, dict(a=a, j=j, sq=sq, y=y, r=r)


def test_split_block_updates_successor_phis_and_debug_location():
    m, fn, n = switchy()
    tail = split_block(fn.entry, fn.entry.terminator)
    assert tail.name == "entry.split" and fn.entry.instructions[-1].successors == [tail]
    assert n["r"].incoming[:2] == [(n["sq"], tail), (n["sq"], tail)]
    verify_function(fn)
    tail2 = split_block(n["a"], n["y"], "a.body")
    assert n["a"].instructions[-1].opcode == "br" and n["y"].parent is tail2
    assert n["r"].incoming[2] == (n["y"], tail2)
    verify_function(fn)
    with pytest.raises(ValueError, match="before a phi"):
        split_block(n["j"], n["r"])
    with pytest.raises(ValueError, match="not in the block"):
        split_block(n["j"], n["y"])


def test_split_block_copies_dbg_to_the_new_branch():
    m, fn, n = switchy()
    split_block(fn.entry, n["sq"], "rest")
    assert fn.entry.terminator.metadata["dbg"] is n["sq"].metadata["dbg"]


def test_split_edge_collapses_duplicate_switch_edges():
    m, fn, n = switchy()
    mid = split_edge(fn.entry, n["j"])
    sw = fn.entry.terminator
    assert [b for _, b in sw.cases] == [mid, mid] and mid.successors == [n["j"]] and sw.default is n["a"]
    assert n["r"].incoming == [(n["y"], n["a"]), (n["sq"], mid)]
    verify_function(fn)
    mid2 = split_edge(n["a"], n["j"])
    assert n["r"].incoming == [(n["sq"], mid), (n["y"], mid2)]
    assert fn.blocks.index(mid2) == fn.blocks.index(n["a"]) + 1
    verify_function(fn)
    with pytest.raises(ValueError, match="no edge"):
        split_edge(n["j"], n["a"])


def test_clone_function_is_a_deep_copy_with_a_value_map():
    m, fn, n = switchy()
    g, vmap = clone_function(fn, "f", m)
    assert g.name == "f.1" and m.functions["f.1"] is g
    assert [a.name for a in g.args] == ["k", "x", "p"] and vmap[fn.args[2]] is g.args[2]
    assert g.header_suffix == ["align 16"] and g.metadata == fn.metadata and g.metadata is not fn.metadata
    assert g.linkage.words == fn.linkage.words and g.linkage is not fn.linkage
    new_y, new_sq = vmap[n["y"]], vmap[n["sq"]]
    assert new_y.parent is vmap[n["a"]] and new_y.operands == (new_sq, new_sq)
    assert new_sq.metadata == {"dbg": n["sq"].metadata["dbg"]} and new_sq.metadata is not n["sq"].metadata
    (rec,) = new_y.debug_records
    assert rec is not n["y"].debug_records[0] and rec.operands[0].md.value is new_sq
    assert rec.operands[1] is n["y"].debug_records[0].operands[1]  # value-free metadata is shared
    sw = g.entry.terminator
    assert sw.cases[0][0] is fn.entry.terminator.cases[0][0]  # constants are shared
    assert [u.user for u in n["sq"].uses] == [n["y"], n["y"], n["r"], n["r"]]  # original untouched
    verify_function(fn)
    verify_function(g)
    assert all(i.function is g for i in g.instructions())


def test_clone_into_maps_arguments_and_renames():
    m, fn, n = switchy()
    host = m.add_function("host", FunctionType(DOUBLE, (DOUBLE, PTR)))
    host.args[0].name = "x"
    host.blocks = []
    b = IRBuilder(host.append_block("entry"))
    b.fadd(host.args[0], host.args[0], "sq")
    with pytest.raises(ValueError, match="argument k of @f is not mapped"):
        clone_into(fn, host, {fn.args[1]: host.args[0], fn.args[2]: host.args[1]})
    vmap = {fn.args[0]: ConstantInt(I32, 2), fn.args[1]: host.args[0], fn.args[2]: host.args[1]}
    host.blocks = [host.entry]
    clone_into(fn, host, vmap, name_suffix=".inl")
    b.br(vmap[fn.entry])
    assert [bb.name for bb in host.blocks] == ["entry", "entry.inl", "a.inl", "join.inl"]
    assert vmap[n["sq"]].name == "sq.inl" and vmap[fn.entry].terminator.condition.value == 2
    verify_function(host)


def test_clone_instruction_remaps_operands():
    m, fn, n = switchy()
    c = clone_instruction(n["y"], {n["sq"]: ConstantFP(DOUBLE, 2.0)})
    assert c.parent is None and c.name == "y" and c.operands[0].value == 2.0 and c.flags == n["y"].flags
    assert len(c.debug_records) == 1 and c.debug_records[0].operands[0].md.value.value == 2.0
    phi = clone_instruction(n["r"])
    assert isinstance(phi, Phi) and phi.incoming == n["r"].incoming and phi.uses == {}
    phi.drop_operands()


def test_clone_instruction_without_debug_info():
    """A copy for another function (a derivative) takes no records naming the
    original's values, and no location in the original's subprogram."""
    m, fn, n = switchy()
    n["sq"].metadata["DIAssignID"] = MDRef("8")
    c = clone_instruction(n["y"], debug=False)
    assert c.debug_records == [] and c.flags == n["y"].flags
    c.drop_operands()
    c = clone_instruction(n["sq"], debug=False)
    assert "dbg" not in c.metadata and "DIAssignID" not in c.metadata and n["sq"].metadata["dbg"].id == "7"
    c.drop_operands()
    assert len(n["y"].debug_records) == 1 and n["sq"].users == [n["y"], n["r"]]


def test_remove_unreachable_blocks_drops_phi_entries():
    m, fn, n = switchy()
    fn.entry.terminator.erase()
    fn.entry.append(Br(n["j"]))  # nothing goes to %a any more
    n["r"].set_operands([n["sq"], fn.entry, n["y"], n["a"]])
    assert remove_unreachable_blocks(fn) == 1
    assert [b.name for b in fn.blocks] == ["entry", "join"] and n["r"].incoming == [(n["sq"], fn.entry)]
    assert n["sq"].users == [n["r"]] and n["y"].parent is None
    verify_function(fn)
    assert remove_unreachable_blocks(fn) == 0


def test_remove_unreachable_cycle_with_outside_uses():
    m = Module()
    fn = m.add_function("g", FunctionType(I64, (I64,)))
    fn.blocks = []
    b = IRBuilder(fn.append_block("entry"))
    live, d1, d2 = b.append_block("live"), b.append_block("d1"), b.append_block("d2")
    b.br(live)
    b.position_at_end(d1)
    ph = b.phi(I64, [], "ph")
    v = b.add(ph, fn.args[0], "v")
    b.br(d2)
    b.position_at_end(d2)
    b.cond_br(b.icmp("eq", v, fn.args[0]), d1, live)
    ph.add_incoming(v, d2)
    b.position_at_end(live)
    p = b.phi(I64, [(fn.args[0], fn.entry), (v, d2)], "p")
    b.ret(p)
    assert remove_unreachable_blocks(fn) == 2
    assert p.incoming == [(fn.args[0], fn.entry)] and fn.args[0].users == [p]
    verify_function(fn)


class _ValueList(User):
    """Stands for `!DIArgList(...)`: a metadata-typed user inside a debug record."""

    def __init__(self, args):
        super().__init__(METADATA, args)


def test_clone_remaps_value_lists_inside_debug_records():
    m, fn, n = switchy()
    lst = _ValueList([n["sq"], fn.args[1]])
    n["y"].debug_records.append(DebugRecord("value", [lst, MetadataOperand(METADATA, MDRef("9"))]))
    g, vmap = clone_function(fn, "g", m)
    new_list = vmap[n["y"]].debug_records[1].operands[0]
    assert new_list is not lst and new_list.operands == (vmap[n["sq"]], g.args[1])
    assert lst.operands == (n["sq"], fn.args[1])


def test_clone_gets_its_own_subprogram_and_local_scopes():
    m, fn, n = switchy()
    md = m.metadata
    md["0"] = MDSpecialized("DICompileUnit", [("file", "!1")], distinct=True)
    md["1"] = MDSpecialized("DIFile", [("filename", '"a!2.c"')])
    md["3"] = MDSpecialized("DISubprogram", [("name", '"f"'), ("unit", "!0"), ("retainedNodes", "!4")], distinct=True)
    md["4"] = MDTuple([MDRef("9")])
    md["6"] = MDSpecialized("DIBasicType", [("name", '"double"')])
    md["7"] = MDSpecialized("DILocation", [("line", "2"), ("scope", "!8")])
    md["8"] = MDSpecialized("DILexicalBlock", [("scope", "!3"), ("file", "!1")], distinct=True)
    md["9"] = MDSpecialized("DILocalVariable", [("name", '"y"'), ("scope", "!8"), ("type", "!6")])
    before = {k: str(v) for k, v in md.items()}
    g, vmap = clone_function(fn, "g", m)
    assert {k: str(md[k]) for k in before} == before  # the original's nodes are unchanged
    new = {k: str(v) for k, v in md.items() if k not in before}
    assert sorted(new, key=int) == ["10", "11", "12", "13", "14"]  # copies of 3, 4, 7, 8, 9
    assert g.metadata["dbg"].id == "10" and fn.metadata["dbg"].id == "3"
    assert new["10"] == 'distinct !DISubprogram(name: "f", unit: !0, retainedNodes: !11)'
    assert new["11"] == "!{!14}" and new["12"] == "!DILocation(line: 2, scope: !13)"
    assert new["13"] == "distinct !DILexicalBlock(scope: !10, file: !1)"
    assert new["14"] == '!DILocalVariable(name: "y", scope: !13, type: !6)'
    assert vmap[n["sq"]].metadata["dbg"].id == "12" and n["sq"].metadata["dbg"].id == "7"
    rec = vmap[n["y"]].debug_records[0]
    assert rec.operands[1].md.id == "14" and n["y"].debug_records[0].operands[1].md.id == "9"
    verify_function(g)


def test_clones_of_clang_g_functions_pass_llvm_verification(tmp_path):
    """Clone every function of a `-g -O2` program; LLVM must accept the module
    without dropping its debug info (one DISubprogram per function)."""
    import subprocess
    from pathlib import Path

    import enzc.ir as ir

    src = Path(__file__).parent / "corpus" / "c20_ad_kernels.c"
    text = subprocess.run(["clang-22", "-O2", "-g", "-S", "-emit-llvm", "-o", "-", str(src)],
                          check=True, capture_output=True, text=True).stdout
    m = ir.parse_module(text)
    originals = [fn for fn in m.functions.values() if not fn.is_declaration]
    for fn in originals:
        g, _ = clone_function(fn, fn.name + ".clone", m)
        verify_function(g)
        assert g.metadata["dbg"].id != fn.metadata["dbg"].id
    out = tmp_path / "cloned.ll"
    out.write_text(ir.print_module(m))
    r = subprocess.run(["opt-22", "-passes=verify", "-S", "-o", "-", str(out)], capture_output=True, text=True)
    assert r.returncode == 0 and r.stderr == "", r.stderr
    assert r.stdout.count("distinct !DISubprogram(") >= 2 * len(originals)


def test_clone_into_the_same_function():
    m, fn, n = switchy()
    vmap = clone_into(fn, fn, {a: a for a in fn.args}, name_suffix=".again")
    assert len(fn.blocks) == 6 and vmap[n["sq"]].name == "sq.again" and vmap[n["sq"]].function is fn
    verify_function(fn)  # the copy is unreachable, which is valid
