"""The progress bar: on a terminal (stderr a TTY) for runs over the delay, never otherwise, never in the report."""

from __future__ import annotations

import os
import pty
import subprocess
import sys
import threading

import pytest
from clirun import REPO, cli

FIXTURES = REPO / "fixtures" / "check"

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="needs a pseudo-terminal")


def _run_with_tty_stderr(*args: str, delay: str) -> tuple[int, str, str]:
    """Run `fixinplace ARGS` with stderr on a pseudo-terminal; return the exit code, stdout and the terminal's text."""
    master, slave = pty.openpty()
    env = {**os.environ, "PYTHONPATH": str(REPO), "TERM": "xterm", "FIXINPLACE_PROGRESS_DELAY": delay}
    env.pop("FORCE_COLOR", None)
    proc = subprocess.Popen([sys.executable, "-m", "fixinplace", *args], cwd=REPO, stdout=subprocess.PIPE,
                            stderr=slave, stdin=subprocess.DEVNULL, env=env)
    os.close(slave)
    chunks: list[bytes] = []

    def drain() -> None:
        while True:
            try:
                data = os.read(master, 4096)
            except OSError:  # EIO: the terminal's other end closed
                break
            if not data:
                break
            chunks.append(data)

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    stdout, _ = proc.communicate(timeout=300)
    reader.join(30)
    os.close(master)
    return proc.returncode, stdout.decode(), b"".join(chunks).decode(errors="replace")


def test_bar_on_a_terminal_once_the_run_lasts_longer_than_the_delay():
    code, stdout, terminal = _run_with_tty_stderr("check", "--no-cache", "--jobs", "1", "--format", "json",
                                                  str(FIXTURES), delay="0")
    assert code == 1
    assert "Checking" in terminal and "files" in terminal
    assert stdout.startswith("{") and "Checking" not in stdout  # the report itself is untouched


def test_no_bar_with_quiet():
    code, stdout, terminal = _run_with_tty_stderr("check", "--no-cache", "--jobs", "1", "--quiet", str(FIXTURES),
                                                  delay="0")
    assert code == 1 and "FIP101" in stdout
    assert "Checking" not in terminal


def test_no_bar_for_a_short_run():
    code, _, terminal = _run_with_tty_stderr("check", "--no-cache", str(FIXTURES / "005_seed001_exp_write_output.py"),
                                             delay="1")
    assert code == 1 and "Checking" not in terminal


def test_no_bar_when_stderr_is_not_a_terminal():
    env = {**os.environ, "FIXINPLACE_PROGRESS_DELAY": "0", "TERM": "xterm"}
    run = cli("check", "--no-cache", "--jobs", "1", str(FIXTURES), cwd=REPO, env=env)
    assert run.returncode == 1 and run.stderr == ""
