"""Put finished files where the user asked, atomically.

Everything is built in the private temporary directory; only a complete file is
moved to its destination (rename, or copy next to it then rename across file
systems), so a failed build never leaves a half-written output behind.
"""

from __future__ import annotations

import errno
import os
import shutil
import sys
import tempfile

from enzc.errors import EnzcError


def publish(built: str, destination: str) -> None:
    """Move the finished file `built` to `destination` ('-' writes it to stdout)."""
    if destination == "-":
        with open(built, "rb") as f:
            shutil.copyfileobj(f, sys.stdout.buffer)
        sys.stdout.flush()
        return
    try:
        try:
            os.replace(built, destination)
        except OSError as err:
            if err.errno != errno.EXDEV:
                raise
            _copy_then_rename(built, destination)
    except OSError as err:
        raise EnzcError(f"enzcc: error: cannot write '{destination}': {err.strerror}") from None


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
