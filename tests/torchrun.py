"""Run Python programs that import torch without paying torch's import for each: one child interpreter per test
worker imports torch once, then runs each program in a fork of itself (`run`), as `python script.py` or
`python -m module` would from the program's folder. Each run gets a fresh process: nothing one program does
reaches the next, and its exit status and stderr are what a fresh interpreter's would be, except that torch is
already imported (so a program's own import-time torch settings must be made before it uses torch, as usual).
"""

from __future__ import annotations

import atexit
import json
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

SERVER = r"""
import json, os, runpy, sys, tempfile, traceback
import torch  # noqa: F401  (once, before every fork)

for line in sys.stdin:
    request = json.loads(line)
    with tempfile.TemporaryFile() as err:
        pid = os.fork()
        if pid == 0:
            os.dup2(err.fileno(), 2)
            sys.stderr = os.fdopen(2, "w", buffering=1)
            os.dup2(os.open(os.devnull, os.O_WRONLY), 1)
            code = 0
            try:
                os.chdir(request["cwd"])
                sys.path[0] = request["cwd"]
                sys.argv = list(request["argv"])
                if request["module"]:
                    runpy.run_module(request["argv"][0], run_name="__main__", alter_sys=True)
                else:
                    runpy.run_path(request["argv"][0], run_name="__main__")
            except SystemExit as e:
                code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
            except BaseException:
                traceback.print_exc()
                code = 1
            sys.stderr.flush()
            os._exit(code)
        _, status = os.waitpid(pid, 0)
        err.seek(0)
        text = err.read().decode("utf-8", "replace")
    print(json.dumps({"returncode": os.waitstatus_to_exitcode(status), "stderr": text}), flush=True)
"""


@dataclass
class Ran:
    """How a program ended: its exit status and what it wrote to stderr."""

    returncode: int
    stderr: str


_server: subprocess.Popen | None = None


def _start() -> subprocess.Popen:
    global _server
    if _server is None or _server.poll() is not None:
        _server = subprocess.Popen([sys.executable, "-c", SERVER], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                   text=True, bufsize=1)
        atexit.register(_server.kill)
    return _server


def run(folder: Path, *argv: str, module: bool = False) -> Ran:
    """Run `python argv...` (with `module`: `python -m argv...`) from `folder`, torch already imported."""
    server = _start()
    assert server.stdin is not None and server.stdout is not None
    server.stdin.write(json.dumps({"cwd": str(folder), "argv": list(argv), "module": module}) + "\n")
    line = server.stdout.readline()
    if not line:
        raise RuntimeError("the torch runner died")
    answer = json.loads(line)
    return Ran(answer["returncode"], answer["stderr"])
