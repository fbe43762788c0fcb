"""Labels measured by running: whether a program raises autograd's in-place error ("modified by an inplace
operation"), for the test families whose expectations are what torch does."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

from fixinplace.analysis import analyze_module

_RUNNER = """
import json, runpy, sys
out = {}
for name, (program, code) in json.loads(sys.argv[1]).items():
    scope = runpy.run_path(program)
    try:
        exec(code, scope)
        out[name] = False
    except RuntimeError as e:
        if sys.argv[2] not in str(e):
            raise
        out[name] = True
print(json.dumps(out))
"""


INPLACE_ERROR = "modified by an inplace operation"
LEAF_ERROR = "a leaf Variable that requires grad is being used in an in-place operation"


def raises_inplace_error(folder: Path, runs: dict[str, tuple[str, str]],
                         message: str = INPLACE_ERROR) -> dict[str, bool]:
    """For each name: whether running `code` in the scope of `program` (a file of `folder`, run first) raises the
    in-place error (or the error whose `message` is given: `LEAF_ERROR`); any other error fails the test. One child
    interpreter (torch imported once) runs them all."""
    proc = subprocess.run([sys.executable, "-c", _RUNNER, json.dumps(runs), message], cwd=folder,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def reported(source: str) -> set[tuple[int, str, str]]:
    """(line, code, severity) of every error and warning the analysis reports for one program."""
    return {(d.line, d.code, d.severity.value) for d in analyze_module(ast.parse(source), source, "case.py")
            if d.severity.value in ("error", "warning")}


def runs_or_raises(source: str, name: str) -> str:
    """What running a program does under torch, in this process: "ok", or the RuntimeError's message."""
    try:
        exec(compile(source, f"<{name}>", "exec"), {"__name__": "case"})  # noqa: S102 (the tests' own programs)
    except RuntimeError as error:
        return str(error)
    return "ok"
