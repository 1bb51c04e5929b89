"""The values an index computed from loop counters takes (`typeanalysis/index_ranges.py`),
on the shapes the optimizer gives `j % 3` and `j / 3`: a select on `j < 3`
between `j` and `j - 3`, and for an `int` counter widened to 64 bits an add of
`2^32 - 3` masked to 32 bits. Each side of a select counts under what its
condition says there; without it the false side reaches -3 (or 2^32 - 1)."""

from __future__ import annotations

from enzc.ir.parser import parse_module

from enzc.ad.typeanalysis.index_ranges import index_range

from test_array_regions import _heap_block
from test_type_helpers import module_from_c, value


def _loop(body: str, bound: int = 6, width: str = "i64") -> object:
    """A counted loop `j = 0 .. bound - 1` whose body defines `%idx` from `%j`."""
    return parse_module(f"""
define void @f(ptr %p) {{
entry:
  br label %loop
loop:
  %j = phi {width} [ 0, %entry ], [ %next, %loop ]
{body}
  %next = add nuw nsw {width} %j, 1
  %done = icmp eq {width} %next, {bound}
  br i1 %done, label %exit, label %loop
exit:
  ret void
}}
""").functions["f"]


def test_a_remainder_turned_into_a_select_stays_in_its_row():
    f = _loop("  %low = icmp ult i32 %j, 3\n  %less = add nsw i32 %j, -3\n"
              "  %idx = select i1 %low, i32 %j, i32 %less", width="i32")
    assert index_range(value(f, "idx")) == (0, 2)


def test_a_wrapped_int_remainder_masked_to_32_bits_stays_in_its_row():
    f = _loop("  %low = icmp ult i64 %j, 3\n  %wrapped = add nuw nsw i64 %j, 4294967293\n"
              "  %sel = select i1 %low, i64 %j, i64 %wrapped\n  %idx = and i64 %sel, 4294967295")
    assert index_range(value(f, "idx")) == (0, 2)


def test_conditions_on_either_side_and_signed_ones_count():
    f = _loop("  %high = icmp sgt i64 %j, 2\n  %less = sub nsw i64 %j, 3\n"
              "  %idx = select i1 %high, i64 %less, i64 %j")
    assert index_range(value(f, "idx")) == (0, 2)
    f = _loop("  %low = icmp ugt i64 3, %j\n  %less = add nsw i64 %j, -3\n"
              "  %idx = select i1 %low, i64 %j, i64 %less")
    assert index_range(value(f, "idx")) == (0, 2)


def test_a_condition_on_another_value_says_nothing_of_the_index():
    f = _loop("  %k = mul nuw nsw i64 %j, 2\n  %low = icmp ult i64 %k, 3\n"
              "  %less = add nsw i64 %j, -3\n  %idx = select i1 %low, i64 %j, i64 %less")
    assert index_range(value(f, "idx")) == (-3, 5)


def test_a_mask_over_a_range_crossing_its_period_keeps_the_whole_mask():
    f = _loop("  %big = add nuw nsw i64 %j, 4294967293\n  %idx = and i64 %big, 4294967295")
    assert index_range(value(f, "idx")) == (0, 4294967295)


def test_a_record_walked_by_div_and_rem_keeps_the_fields_after_its_matrix():
    # m[j / 3][j % 3] of a record copied to the heap, without TBAA: the optimizer's
    # select for j % 3 bounded the walk only with the condition (seed 927250)
    m = module_from_c("""
        #include <stdlib.h>
        #include <string.h>
        struct R { double m[2][3]; int n; const double *p; double w; };
        double f(const struct R *r) {
            struct R *h = malloc(sizeof *h);
            memcpy(h, r, sizeof *h);
            double s = h->w * h->n;
            #pragma clang loop unroll(disable)
            for (int j = 0; j < 6; j++) s += h->m[j / 3][j % 3] * h->p[j % 2];
            free(h);
            return s;
        }""", "-O2", "-fno-strict-aliasing")
    assert not _heap_block(m).has_conflict()


def test_a_halved_counter_masked_to_31_bits_stays_in_its_rows():
    # m[j / 2][j % 2] with j < 4 as the optimizer writes the row: (j >> 1) & 0x7fffffff
    f = _loop("  %half = lshr i64 %j, 1\n  %idx = and i64 %half, 2147483647", bound=4)
    assert index_range(value(f, "idx")) == (0, 1)
