"""The check cache: reused when nothing changed, never stale, never fatal, safe with concurrent writers."""

from __future__ import annotations

import json
import multiprocessing
import shutil
import subprocess
import sys
from pathlib import Path

from clirun import REPO, cli

from fixinplace.cache import Cache, result_from_json, result_to_json
from fixinplace.diagnostics import FileResult
from fixinplace.engine import check_source, run_check
from fixinplace.settings import Settings

FIXTURES = REPO / "fixtures" / "check"
HAZARD = "import torch\nu = torch.ones(3, requires_grad=True)\nuexp = u.exp()\nuexp[0] = 666\nuexp.sum().backward()\n"
CLEAN = "import torch\nx = torch.ones(3)\nx.add_(1)\n"


def _entries(project: Path) -> list[Path]:
    from fixinplace.cache import SCHEMA

    return sorted((project / ".fixinplace_cache" / SCHEMA).rglob("*.json"))


def _project(tmp_path: Path) -> Path:
    (tmp_path / "a.py").write_text(HAZARD)
    (tmp_path / "b.py").write_text(CLEAN)
    (tmp_path / "c.py").write_text("x += (\n")  # a syntax error is a cached result too
    return tmp_path


def test_warm_run_reports_exactly_what_the_cold_run_did(tmp_path):
    project = _project(tmp_path)
    for fmt in ("json", "text", "sarif", "github"):
        cold = cli("check", "--format", fmt, ".", cwd=project)
        assert cold.returncode == 2  # the syntax error
        warm = cli("check", "--format", fmt, ".", cwd=project)
        fresh = cli("check", "--no-cache", "--format", fmt, ".", cwd=project)
        assert cold.stdout == warm.stdout == fresh.stdout and warm.returncode == 2
    # Three files, each cached twice: with the checked fixes that text (`[*]`), json and sarif show, and plain
    # (github, which shows no fixes).
    assert len(_entries(project)) == 6
    assert (project / ".fixinplace_cache" / ".gitignore").read_text().strip().endswith("*")
    assert (project / ".fixinplace_cache" / "CACHEDIR.TAG").read_text().startswith("Signature: 8a477f597d28d172789f06886806bc55")


def test_cached_results_are_used_and_no_cache_bypasses_them(tmp_path):
    project = _project(tmp_path)
    cli("check", ".", cwd=project)
    for entry in _entries(project):  # mark every cached diagnostic: a run that reuses them shows the mark
        raw = json.loads(entry.read_text())
        for d in raw["diagnostics"]:
            d["message"] = "FROM-THE-CACHE"
        entry.write_text(json.dumps(raw))
    assert "FROM-THE-CACHE" in cli("check", ".", cwd=project).stdout
    bypass = cli("check", "--no-cache", ".", cwd=project)
    assert "FROM-THE-CACHE" not in bypass.stdout and "FIP101" in bypass.stdout


def test_a_changed_file_or_changed_settings_is_checked_again(tmp_path):
    project = _project(tmp_path)
    first = json.loads(cli("check", "--format", "json", ".", cwd=project).stdout)
    assert [d["path"] for d in first["diagnostics"]] == ["a.py"]
    (project / "a.py").write_text(HAZARD.replace("uexp[0] = 666\n", "uexp = uexp + 1\n"))
    second = json.loads(cli("check", "--format", "json", ".", cwd=project).stdout)
    assert second["diagnostics"] == []
    third = json.loads(cli("check", "--format", "json", "--severity", "info", ".", cwd=project).stdout)
    assert [d["code"] for d in third["diagnostics"]] == ["FIP900"]  # the info note on b.py's write


def test_corrupt_entries_are_ignored(tmp_path):
    project = _project(tmp_path)
    expected = cli("check", "--format", "json", ".", cwd=project)
    entries = _entries(project)
    entries[0].write_bytes(b"\x00\xff not json")
    entries[1].write_text('{"schema": "v1", "error": null, "diagnostics": [{"line": "x"}]}')
    entries[2].unlink()
    entries[2].mkdir()  # a folder where the entry should be: neither readable nor replaceable
    again = cli("check", "--format", "json", ".", cwd=project)
    assert again.stdout == expected.stdout and again.returncode == expected.returncode
    assert again.stderr == expected.stderr


def test_an_entry_swapped_with_another_files_is_not_served(tmp_path):
    """Each entry is bound to what it was computed for: two files' entries swapped on disk (each valid, with lines
    that exist in the other file) are misses, and are rewritten."""
    (tmp_path / "a.py").write_text(HAZARD)
    (tmp_path / "b.py").write_text(HAZARD.replace("uexp", "vexp"))
    expected = cli("check", "--format", "json", "--no-cache", ".", cwd=tmp_path)
    cli("check", "--format", "json", ".", cwd=tmp_path)
    entries = _entries(tmp_path)
    assert len(entries) == 2
    first, second = (entry.read_bytes() for entry in entries)
    assert (b"uexp" in first) != (b"uexp" in second)  # one entry per file
    entries[0].write_bytes(second)
    entries[1].write_bytes(first)
    again = cli("check", "--format", "json", ".", cwd=tmp_path)
    assert (again.stdout, again.returncode) == (expected.stdout, expected.returncode)
    assert [entry.read_bytes() for entry in entries] == [first, second]  # rewritten with their own results
    assert cli("check", "--format", "json", ".", cwd=tmp_path).stdout == expected.stdout


def test_an_unwritable_cache_folder_is_not_an_error(tmp_path):
    project = _project(tmp_path)
    (project / "pyproject.toml").write_text('[tool.fixinplace]\ncache-dir = "blocker/cache"\n')
    (project / "blocker").write_text("a file, so no folder can be made under it")
    run = cli("check", "--format", "json", "a.py", "b.py", cwd=project)
    assert run.returncode == 1 and run.stderr == ""
    assert [d["path"] for d in json.loads(run.stdout)["diagnostics"]] == ["a.py"]


def test_cache_setting_false_writes_nothing(tmp_path):
    project = _project(tmp_path)
    (project / "pyproject.toml").write_text("[tool.fixinplace]\ncache = false\n")
    cli("check", ".", cwd=project)
    assert not (project / ".fixinplace_cache").exists()


def _write_many(folder: str, key: str, rounds: int) -> None:
    cache = Cache(Path(folder), "settings")
    result = check_source(HAZARD, "a.py")
    for _ in range(rounds):
        cache.put(key, FileResult("a.py", diagnostics=result))


def test_concurrent_writers_leave_a_complete_entry(tmp_path):
    cache = Cache(tmp_path / "cache", "settings")
    key = cache.key("a.py", HAZARD.encode())
    ctx = multiprocessing.get_context("spawn" if sys.platform == "win32" else "fork")
    procs = [ctx.Process(target=_write_many, args=(str(tmp_path / "cache"), key, 50)) for _ in range(4)]
    for p in procs:
        p.start()
    for _ in range(200):  # read while they write: every read is a miss or a complete entry, never an exception
        got = cache.get(key, "a.py")
        assert got is None or [d.code for d in got.diagnostics] == ["FIP101"]
    for p in procs:
        p.join(60)
        assert p.exitcode == 0
    assert [d.code for d in cache.get(key, "a.py").diagnostics] == ["FIP101"]
    leftovers = [p.name for p in (tmp_path / "cache").rglob("*") if p.name.startswith(".tmp-")]
    assert leftovers == []


def test_two_runs_at_once_share_the_cache(tmp_path):
    project = tmp_path / "p"
    shutil.copytree(FIXTURES, project)
    cmd = [sys.executable, "-m", "fixinplace", "check", "--format", "json", "--jobs", "2", "."]
    env = {"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"}
    runs = [subprocess.Popen(cmd, cwd=project, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
            for _ in range(2)]
    outs = [r.communicate(timeout=300) for r in runs]
    reference = cli("check", "--format", "json", "--no-cache", ".", cwd=project)
    for out, err in outs:
        assert out == reference.stdout, err
    assert cli("check", "--format", "json", ".", cwd=project).stdout == reference.stdout


def test_serial_parallel_cold_and_warm_reports_are_identical(tmp_path, monkeypatch):
    monkeypatch.chdir(FIXTURES)
    serial = run_check(["."], Settings(project_root=tmp_path / "s", jobs=1))
    parallel = run_check(["."], Settings(project_root=tmp_path / "p", jobs=2))
    warm = run_check(["."], Settings(project_root=tmp_path / "p", jobs=2))
    for other in (parallel, warm):
        assert other.files == serial.files and other.errors == serial.errors
        assert other.diagnostics == serial.diagnostics and other.sources == serial.sources
    assert len(serial.diagnostics) > 50


def test_result_round_trips_through_json():
    diagnostics = check_source(HAZARD, "a.py")
    assert diagnostics and any(d.related or d.data for d in diagnostics)
    result = FileResult("a.py", diagnostics=diagnostics)
    assert result_from_json(json.loads(json.dumps(result_to_json(result))), "a.py") == result
