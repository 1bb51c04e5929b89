"""Put finished files where the user asked, atomically.

Everything is built in the private temporary directory; only a complete file is
moved to its destination (rename, or copy next to it then rename across file
systems), so a failed build never leaves a half-written output behind.

A destination that exists and is not a regular file (`/dev/null`, a FIFO, a
terminal, a socket) is written into instead, as clang does: renaming onto it would
replace the device node or FIFO with a regular file (and, as root, destroy
`/dev/null`).
"""

from __future__ import annotations

import errno
import os
import shutil
import stat
import sys
import tempfile

from enzc.errors import EnzcError


def write_output(built: str, destination: str) -> None:
    """Move the finished file `built` to `destination` ('-' writes it to stdout)."""
    if destination == "-":
        with open(built, "rb") as f:
            shutil.copyfileobj(f, sys.stdout.buffer)
        sys.stdout.flush()
        return
    try:
        if is_special_file(destination):
            _copy_into(built, destination)
            return
        try:
            os.replace(built, destination)
        except OSError as err:
            if err.errno != errno.EXDEV:
                raise
            _copy_then_rename(built, destination)
    except OSError as err:
        raise EnzcError(f"enzcc: error: cannot write '{destination}': {err.strerror}") from None


def is_special_file(path: str) -> bool:
    """True if `path` exists and is neither a regular file nor a directory."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return False
    return not (stat.S_ISREG(mode) or stat.S_ISDIR(mode))


def _copy_into(built: str, destination: str) -> None:
    """Write the contents into the existing device or FIFO (opening a FIFO waits for
    a reader, as clang's does)."""
    with open(built, "rb") as src, open(destination, "wb") as out:
        shutil.copyfileobj(src, out)


def _copy_then_rename(built: str, destination: str) -> None:
    directory = os.path.dirname(os.path.abspath(destination))
    fd, staging = tempfile.mkstemp(prefix=".enzcc-", dir=directory)
    os.close(fd)
    try:
        shutil.copy2(built, staging)
        os.replace(staging, destination)
    except BaseException:
        os.unlink(staging)
        raise
