"""Labels measured by running: whether a program raises autograd's in-place error ("modified by an inplace
operation"), for the test families whose expectations are what torch does."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

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
