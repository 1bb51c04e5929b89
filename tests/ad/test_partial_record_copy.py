"""A copy taken as whole records whose length nothing proves whole (a byte count
passed in) is checked at run time: a copy of part of a record stops the program with
a message instead of giving a derivative of part of a double
(`memtypes._whole_records_check`). The whole-record runs of the same program are a
gradient test (`rev2/memory/records_copied_by_byte_count.c`)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from gradcheck import COMPILE_TIMEOUT, ENZCC, PROGRAMS

SOURCE = PROGRAMS / "rev2" / "memory" / "records_copied_by_byte_count.c"


@pytest.mark.parametrize("opt", ["-O0", "-O2"])
def test_a_copy_of_part_of_a_record_stops_the_program(tmp_path: Path, opt: str) -> None:
    exe = tmp_path / "prog"
    build = subprocess.run([str(ENZCC), opt, str(SOURCE), "-o", str(exe)], capture_output=True, text=True,
                           timeout=COMPILE_TIMEOUT)
    assert build.returncode == 0, build.stderr[-3000:]
    run = subprocess.run([str(exe), "3", "2.5"], capture_output=True, text=True, timeout=60)
    assert run.returncode != 0
    assert "moved part of a record" in run.stderr
    # the whole-record call before it ran and printed its gradient (2 records copied)
    assert [line.split()[1] for line in run.stdout.splitlines()] == ["x[0]/2", "x[1]/2", "x[2]/2"]
