"""`python -m enzc.ir IN [-o OUT] [--lazy]`: parse IN (.ll or .bc), verify it, print it back.

Without `--lazy` every function body and metadata node is parsed, the whole module
is verified (`verify_module`: what LLVM's parser and verifier would reject) and
printed from enzc's objects (the round-trip test of the IR core); with it, untouched
bodies pass through verbatim and only the parsed parts are verified.
Errors go to stderr as `file:line:col: error: message` (`file: error: message` for
the verifier's findings), exit code 1; the output file is written atomically (a
temporary file renamed into place), so a failed run leaves no partial output behind.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

from enzc.errors import EnzcError
from enzc.ir.bitcode import parse_file, read_module_text
from enzc.ir.parser import TOO_DEEP, parse_module
from enzc.ir.printer import print_module
from enzc.ir.verifier import VerificationError, verify_module

_SHOWN_PROBLEMS = 20


def write_atomically(path: Path, data: bytes) -> None:
    """Write `data` to `path` via a temporary file in the same directory and a rename.

    An existing device or FIFO (`-o /dev/null`) is written into instead, as clang
    does: a rename would replace it with a regular file.
    """
    if path.exists() and not (path.is_file() or path.is_dir()):
        with open(path, "wb") as f:
            f.write(data)
        return
    directory = path.parent if str(path.parent) else Path(".")
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m enzc.ir", description="Round-trip LLVM IR through enzc's parser and printer.")
    ap.add_argument("input", help="a .ll or .bc file ('-' for text on stdin)")
    ap.add_argument("-o", dest="output", default="-", help="output .ll file ('-' for stdout, the default)")
    ap.add_argument("--lazy", action="store_true", help="keep untouched function bodies as their original text")
    args = ap.parse_args(argv)
    try:
        if args.input == "-":
            module = parse_module(read_module_text(sys.stdin.buffer.read()), filename="<stdin>", lazy=args.lazy)
        else:
            module = parse_file(args.input, lazy=args.lazy)
        verify_module(module, materialize=not args.lazy)
        text = print_module(module).encode("utf-8", "surrogateescape")
        if args.output == "-":
            sys.stdout.buffer.write(text)
            sys.stdout.buffer.flush()
        else:
            write_atomically(Path(args.output), text)
    except VerificationError as e:
        for problem in e.problems[:_SHOWN_PROBLEMS]:
            print(f"{args.input}: error: {problem}", file=sys.stderr)
        if len(e.problems) > _SHOWN_PROBLEMS:
            print(f"{args.input}: note: {len(e.problems) - _SHOWN_PROBLEMS} more problems",
                  file=sys.stderr)
        return 1
    except EnzcError as e:
        print(str(e), file=sys.stderr)
        return e.exit_code
    except OSError as e:
        print(f"{args.output}: error: {e.strerror or e}", file=sys.stderr)
        return 1
    except RecursionError:  # printing or verifying a model nested deeper than Python allows
        print(f"{args.input}: error: {TOO_DEEP}", file=sys.stderr)
        return 1
    except Exception as e:  # a bug in enzc, not in the input: still no traceback unless asked
        if os.environ.get("ENZC_DEBUG"):
            raise
        print(f"{args.input}: error: internal error in enzc.ir ({type(e).__name__}: {e}); "
              "set ENZC_DEBUG=1 for a traceback", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
