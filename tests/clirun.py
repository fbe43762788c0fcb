"""Running the real `fixinplace` command line in a subprocess, for the CLI tests."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def cli(*args: str, cwd: Path, python_flags: tuple[str, ...] = (), env: dict | None = None, timeout: float = 300,
        encoding: str | None = None) -> subprocess.CompletedProcess:
    """`python -m fixinplace ARGS` with this checkout first on the path, no colour and no debug re-raise."""
    env = dict(os.environ if env is None else env)
    env["PYTHONPATH"] = str(REPO) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    env.pop("FORCE_COLOR", None)
    env.pop("FIXINPLACE_DEBUG", None)
    return subprocess.run(
        [sys.executable, *python_flags, "-m", "fixinplace", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        encoding=encoding,
        env=env,
        timeout=timeout,
    )
