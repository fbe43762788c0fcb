"""The end of a fork of one of the tests' warm servers (`warmcli.py`, `forkserver.py`): run `python ARGS` in this
process as a fresh interpreter would, its standard streams already in place, and exit with its status."""

from __future__ import annotations

import os
import runpy
import sys
import traceback
from typing import NoReturn


def run_as_main(args: list[str], cwd: str) -> NoReturn:
    """Run `python ARGS` (`-m MODULE ...` or `SCRIPT ...`) from `cwd` on file descriptors 0 to 2, then end the
    process with its exit status (a `SystemExit` message is printed to stderr, as the interpreter does)."""
    sys.stdin = open(0, closefd=False)
    sys.stdout = open(1, "w", closefd=False)
    sys.stderr = open(2, "w", closefd=False)
    code = 1
    try:
        if args[0] == "-m":
            sys.argv = [args[1], *args[2:]]
            sys.path[0] = cwd
            runpy.run_module(args[1], run_name="__main__", alter_sys=True)
        else:
            sys.argv = list(args)
            sys.path[0] = os.path.dirname(os.path.abspath(args[0]))
            runpy.run_path(args[0], run_name="__main__")
        code = 0
    except SystemExit as exit:
        code = exit.code if isinstance(exit.code, int) else (0 if exit.code is None else 1)
        if exit.code is not None and not isinstance(exit.code, int):
            print(exit.code, file=sys.stderr)
    except BaseException:
        traceback.print_exc()
    finally:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(code & 0xFF)
