"""Copies of a run-time length taken as whole records or whole floats are checked at
run time: a copy of part of a record (`copy_checks.whole_records_check`) or one ending
inside a double (`copy_checks.covered_elements`) stops the program with a message
instead of giving a derivative of part of a double. The runs of the same programs
that copy whole values are gradient tests (`rev2/memory/records_copied_by_byte_count.c`,
`rev2/memory/generic_copy_helper.c`)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from gradcheck import COMPILE_TIMEOUT, ENZCC, PROGRAMS

MEMORY = PROGRAMS / "rev2" / "memory"
CASES = {
    # 2.5 records: the second call copies half of a record
    "part_of_a_record": (MEMORY / "records_copied_by_byte_count.c", ["3", "2.5"], "moved part of a record",
                         ["x[0]/2", "x[1]/2", "x[2]/2"]),
    # 20 bytes of {double, char[3], double, bool}: the copy ends inside the second double
    "inside_a_double": (MEMORY / "generic_copy_helper.c", ["20"], "ended inside a floating-point value",
                        ["whole.x", "whole.y"]),
}


@pytest.mark.parametrize("opt", ["-O0", "-O2"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_a_copy_of_part_of_a_value_stops_the_program(tmp_path: Path, case: str, opt: str) -> None:
    source, args, message, printed_before = CASES[case]
    exe = tmp_path / "prog"
    build = subprocess.run([str(ENZCC), opt, str(source), "-o", str(exe)], capture_output=True, text=True,
                           timeout=COMPILE_TIMEOUT)
    assert build.returncode == 0, build.stderr[-3000:]
    run = subprocess.run([str(exe), *args], capture_output=True, text=True, timeout=60)
    assert run.returncode != 0
    assert message in run.stderr
    # the call before it copied whole values and printed its gradient
    assert [line.split()[1] for line in run.stdout.splitlines()] == printed_before
