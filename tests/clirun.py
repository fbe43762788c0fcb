"""Running the real `fixinplace` command line (and other children of the tests) in a subprocess."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import forkserver
from warmcli import warm_run

REPO = Path(__file__).resolve().parent.parent


def cli(*args: str, cwd: Path, python_flags: tuple[str, ...] = (), env: dict | None = None, timeout: float = 300,
        encoding: str | None = None, as_user: bool = False, input: str | None = None) -> subprocess.CompletedProcess:
    """`python -m fixinplace ARGS` with this checkout first on the path, no colour and no debug re-raise;
    `as_user`: with file permissions applied even when the tests run as root (`without_permission_override`).
    Run in a fork of a warm interpreter (`warmcli`) unless the interpreter itself must differ: Python flags,
    dropped capabilities, or FIXINPLACE_TEST_FRESH=1 in the tests' environment (every command fresh)."""
    launcher: list[str] = [sys.executable, *python_flags]
    if not python_flags and not as_user and os.environ.get("FIXINPLACE_TEST_FRESH", "") in ("", "0"):
        if args and args[0] == "trace" and os.environ.get(forkserver.ADDRESS_VARIABLE):
            # `trace` runs the program (and torch) in its own process: a fork of the server that imported torch.
            launcher = [sys.executable, forkserver.CLIENT]
        else:
            ran = warm_run(args, cwd, child_env(env), timeout, encoding, input)
            if ran is not None:
                return ran
    return subprocess.run(
        [*launcher, "-m", "fixinplace", *args],
        input=input,
        cwd=cwd,
        capture_output=True,
        text=True,
        encoding=encoding,
        env=child_env(env),
        timeout=timeout,
        **(without_permission_override() if as_user else {}),
    )


def child_env(env: dict | None = None, **extra: str) -> dict:
    """`env` (default: this process's environment) with this checkout first on the path, no forced colour and no
    debug re-raise, and `extra` set: what every child process of the tests runs under."""
    env = dict(os.environ if env is None else env)
    env["PYTHONPATH"] = str(REPO) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    env.pop("FORCE_COLOR", None)
    env.pop("FIXINPLACE_DEBUG", None)
    env.update(extra)
    return env


def without_permission_override() -> dict:
    """subprocess arguments under which file permissions apply: as root, the child drops the capabilities that
    override them (CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH) from its bounding set before it runs Python."""
    if os.geteuid() != 0:
        return {}
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    pr_capbset_drop, cap_dac_override, cap_dac_read_search = 24, 1, 2

    def drop() -> None:
        for cap in (cap_dac_override, cap_dac_read_search):
            if libc.prctl(pr_capbset_drop, cap, 0, 0, 0) != 0:
                raise OSError(ctypes.get_errno(), "prctl(PR_CAPBSET_DROP)")

    return {"preexec_fn": drop}
