"""`analysis/inactive_memory.py`: which local objects provably hold no derivative.
A local copy of constant bytes is clean; active bytes written into it directly,
through a copy, through a pointer kept in memory or by a callee make it dirty; its
address leaving for memory the analysis does not follow, or an unknown callee,
makes it escape."""

from __future__ import annotations

from enzc.ad.analysis.inactive_memory import InactiveMemory

from test_type_helpers import module_from_ir, value

HEAD = """
declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)
declare void @opaque(ptr)
declare double @reads(ptr) memory(argmem: read)
"""


def _clean(body: str, active: str = "ac", name: str = "k") -> bool:
    """Whether `%name` of `@f(ptr %x, ptr %c)` (x: enzyme_dup, c: enzyme_const, as
    `active` says) holds no derivative."""
    m = module_from_ir(HEAD + body)
    fn = m.functions["f"]
    return InactiveMemory(fn, [ch == "a" for ch in active], m).no_derivative_behind(value(fn, name))


def _f(lines: str) -> str:
    return ("define void @f(ptr %x, ptr %c) {\nentry:\n  %k = alloca [32 x i8]\n"
            "  %slot = alloca ptr\n" + lines + "  %r = call double @reads(ptr %k)\n  ret void\n}\n")


def test_a_copy_of_constant_bytes_is_clean():
    assert _clean(_f("  call void @llvm.memcpy.p0.p0.i64(ptr %k, ptr %c, i64 16, i1 false)\n"
                     "  %b = load i64, ptr %c\n  store i64 %b, ptr %k\n"))


def test_active_bytes_make_it_dirty_however_they_arrive():
    copied = "  call void @llvm.memcpy.p0.p0.i64(ptr %k, ptr %x, i64 8, i1 false)\n"
    stored = "  %d = load double, ptr %x\n  %b = bitcast double %d to i64\n  store i64 %b, ptr %k\n"
    shifted = ("  %w = load i64, ptr %x\n  %s = lshr i64 %w, 8\n  %t = trunc i64 %s to i8\n"
               "  %p = getelementptr i8, ptr %k, i64 3\n  store i8 %t, ptr %p\n")
    through_slot = ("  store ptr %k, ptr %slot\n  %q = load ptr, ptr %slot\n"
                    "  call void @llvm.memcpy.p0.p0.i64(ptr %q, ptr %x, i64 8, i1 false)\n")
    for body in (copied, stored, shifted, through_slot):
        assert not _clean(_f(body)), body


def test_an_escaping_address_is_not_clean():
    into_dup_memory = "  store ptr %k, ptr %x\n"
    to_unknown_code = "  call void @opaque(ptr %k)\n"
    as_an_integer = "  %i = ptrtoint ptr %k to i64\n  store i64 %i, ptr %x\n"
    for body in (into_dup_memory, to_unknown_code, as_an_integer):
        assert not _clean(_f(body)), body
    assert _clean(_f("  store ptr %k, ptr %slot\n"))  # kept in a clean local slot


def test_a_callee_writing_active_data_makes_it_dirty():
    callee = ("define void @fill(ptr %dst, ptr %src) {\n  %v = load double, ptr %src\n"
              "  store double %v, ptr %dst\n  ret void\n}\n")
    assert not _clean(callee + _f("  call void @fill(ptr %k, ptr %x)\n"))
    assert _clean(callee + _f("  call void @fill(ptr %k, ptr %c)\n"))


def test_constant_arguments_are_not_local_memory():
    assert not _clean(_f(""), name="c")  # nothing to decide: the caller's memory


def test_a_branch_telling_a_pointer_apart_from_a_local_buffer():
    # std::string's move: `if (s._M_p != s._M_local_buf) node->_M_p = s._M_p`
    body = """
define void @f(ptr %x, ptr %c) {
entry:
  %s = alloca [32 x i8]
  %buf = getelementptr i8, ptr %s, i64 16
  store ptr %buf, ptr %s
  %p = load ptr, ptr %s
  %local = icmp eq ptr %p, %buf
  br i1 %local, label %done, label %heap
heap:
  store ptr %p, ptr %x
  br label %done
done:
  %r = call double @reads(ptr %s)
  ret void
}
"""
    assert _clean(body, name="s")
    assert not _clean(body.replace("icmp eq ptr %p, %buf", "icmp eq ptr %p, null"), name="s")


def test_a_posix_memalign_block_written_with_active_data_is_not_clean_to_read():
    body = """
declare i32 @posix_memalign(ptr, i64, i64)
define void @f(ptr %x, ptr %c) {
entry:
  %k = alloca [32 x i8]
  %slot = alloca ptr
  %e = call i32 @posix_memalign(ptr %slot, i64 64, i64 64)
  %b = load ptr, ptr %slot
  %d = load double, ptr %x
  store double %d, ptr %b
  call void @llvm.memcpy.p0.p0.i64(ptr %k, ptr %b, i64 8, i1 false)
  %r = call double @reads(ptr %k)
  ret void
}
"""
    assert not _clean(body)
