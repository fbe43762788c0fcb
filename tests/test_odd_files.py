"""Special files and odd paths: each gets a one-line error naming it and the reason (exit 2), the other files are
checked, nothing hangs; a cache entry of the wrong shape is a miss, rewritten."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from clirun import cli

from fixinplace.cache import SCHEMA

HAZARD = "import torch\n\n\ndef f(x):\n    y = x.exp()\n    y.add_(1)\n    return y\n"


def _project(tmp_path: Path) -> Path:
    (tmp_path / "good.py").write_text(HAZARD)
    return tmp_path


def _errors(output: str) -> list[str]:
    """The error lines (`check` prints them with its report, `fix` on stderr)."""
    return [line for line in output.splitlines() if ": error: " in line]


@pytest.mark.parametrize("command", [["check", "--no-cache"], ["fix"]])
def test_special_files_and_bad_paths_are_one_line_errors(tmp_path: Path, command: list[str]):
    project = _project(tmp_path)
    os.mkfifo(project / "fifo.py")  # reading it would block until something writes to it
    (project / "loop_a.py").symlink_to("loop_b.py")
    (project / "loop_b.py").symlink_to("loop_a.py")
    (project / "broken.py").symlink_to("nowhere.py")
    (project / "zero.py").symlink_to("/dev/zero")  # reading it would never end
    long_name = "x" * 300 + "/a.py"
    proc = cli(*command, "fifo.py", "loop_a.py", "broken.py", "zero.py", long_name, "good.py", cwd=project)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr
    assert sorted(_errors(proc.stdout + proc.stderr)) == sorted([
        "fifo.py: error: not a regular file: a FIFO",
        "loop_a.py: error: too many levels of symbolic links (a symlink loop)",
        "broken.py: error: a broken symbolic link",
        "zero.py: error: not a regular file: a character device",
        f"{long_name}: error: file name too long",
    ])
    assert "good.py" in proc.stdout  # the other file is checked (or fixed)


def test_a_path_with_a_line_break_is_printed_on_one_line(tmp_path: Path):
    project = _project(tmp_path)
    (project / "good.py").rename(project / "new\nline.py")
    check = cli("check", "--no-cache", ".", cwd=project)
    assert check.stdout.startswith("new\\nline.py:6:5: FIP101"), check.stdout
    missing = cli("check", "--no-cache", "gone\naway.py", cwd=project)
    assert _errors(missing.stdout + missing.stderr) == ["gone\\naway.py: error: no such file or directory"]
    fix = cli("fix", "new\nline.py", cwd=project)
    assert fix.returncode == 1, fix.stderr
    assert fix.stdout.startswith('--- "a/new\\nline.py"\n+++ "b/new\\nline.py"\n@@ -3,5 +3,5 @@\n'), fix.stdout


def _cache_entries(project: Path) -> list[Path]:
    return sorted((project / ".fixinplace_cache" / SCHEMA).rglob("*.json"))


@pytest.mark.parametrize("special", ["fifo", "dev_zero"])
def test_a_special_file_in_the_cache_is_a_miss(tmp_path: Path, special: str):
    project = _project(tmp_path)
    cold = cli("check", "good.py", cwd=project)
    (entry,) = _cache_entries(project)
    entry.unlink()
    if special == "fifo":
        os.mkfifo(entry)
    else:
        entry.symlink_to("/dev/zero")
    warm = cli("check", "good.py", cwd=project)
    assert (warm.returncode, warm.stdout, warm.stderr) == (cold.returncode, cold.stdout, cold.stderr)


BAD_FIELDS = [
    ("error", 5), ("message", 123), ("message", ""), ("fix", "safe"), ("fix", ["maybe", "x", "y"]),
    ("line", 6.0), ("line", -1), ("line", 10**9), ("line", True), ("column", "5"), ("end_line", 1),
    ("code", "FIP999"), ("severity", "fatal"), ("related", [[1.5, 1, "x"]]), ("related", "x"), ("facts", 7),
]


@pytest.fixture(scope="module")
def cold_cache(tmp_path_factory) -> tuple[Path, Path, dict, object]:
    """A project checked once (cold): (project, its one cache entry, the entry's JSON, the cold run). Each test
    below plants its bad entry in this same project (the entry is bound to the file's path) and the warm run must
    put the good one back."""
    project = _project(tmp_path_factory.mktemp("cache"))
    cold = cli("check", "--format", "json", "good.py", cwd=project)
    (entry,) = _cache_entries(project)
    return project, entry, json.loads(entry.read_text()), cold


@pytest.mark.parametrize("field, value", BAD_FIELDS, ids=[f"{f}={v!r}" for f, v in BAD_FIELDS])
def test_cache_entries_with_wrong_fields_are_misses_and_rewritten(cold_cache: tuple, field: str, value):
    project, entry, good, cold = cold_cache
    raw = json.loads(json.dumps(good))
    if field == "error":
        raw["error"] = value
    else:
        raw["diagnostics"][0][field] = value
    entry.write_text(json.dumps(raw))
    warm = cli("check", "--format", "json", "good.py", cwd=project)
    assert (warm.returncode, warm.stdout, warm.stderr) == (cold.returncode, cold.stdout, cold.stderr)
    assert json.loads(entry.read_text()) == good  # the fresh result replaced the bad entry


@pytest.mark.parametrize("command", [["check", "--no-cache"], ["fix"]])
def test_unreadable_files_and_folders_are_one_line_errors(tmp_path: Path, command: list[str]):
    project = _project(tmp_path)
    (project / "secret.py").write_text(HAZARD)
    (project / "secret.py").chmod(0o000)
    locked = project / "locked"
    locked.mkdir()
    (locked / "inside.py").write_text(HAZARD)
    locked.chmod(0o000)
    try:
        for paths in (["good.py", "secret.py", "locked/inside.py", "locked"], ["."]):
            proc = cli(*command, *paths, cwd=project, as_user=True)
            output = proc.stdout + proc.stderr
            assert proc.returncode == 2, output
            assert "Traceback" not in output
            expected = ["secret.py: error: cannot read: permission denied", "locked: error: cannot read directory: Permission denied"]
            if "locked/inside.py" in paths:
                expected.append("locked/inside.py: error: permission denied")
            assert sorted(_errors(output)) == sorted(expected), output
            assert ("good.py:6:5: FIP101" if command[0] == "check" else "+++ b/good.py") in output, output
    finally:
        locked.chmod(0o755)
