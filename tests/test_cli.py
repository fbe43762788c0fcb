"""The `fixinplace` command, run for real in subprocesses on real files."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest
from clirun import child_env, cli

from fixinplace import __version__

REPO = Path(__file__).resolve().parent.parent
SCHEMA = Path(__file__).parent / "data" / "sarif-schema-2.1.0.json"


def one_line_error(proc: subprocess.CompletedProcess) -> str:
    assert proc.returncode == 2, proc
    assert proc.stdout == ""
    lines = proc.stderr.splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("fixinplace: error: ")
    return lines[0]


@pytest.fixture
def bad_inputs(tmp_path: Path) -> Path:
    """A project with one file of every kind of bad input, and good files around them."""
    root = tmp_path / "proj"
    (root / "pkg").mkdir(parents=True)
    (root / "empty_dir").mkdir()
    (root / "pyproject.toml").write_text("[tool.fixinplace]\nmax-file-size = 4000\n")
    (root / "pkg" / "a_ok.py").write_text("import torch\nbuf = torch.zeros(3)\nbuf.add_(1)\n")
    (root / "pkg" / "b_syntax.py").write_text("x = 1\nx += (\n")
    (root / "pkg" / "c_undecodable.py").write_bytes(b"x = '\xff\xfe'\nx.add_(1)\n")
    (root / "pkg" / "d_binary.py").write_bytes(b"\x7fELF\x00\x00\x01x.add_(1)")
    (root / "pkg" / "e_huge.py").write_text("x.add_(1)\n" * 500)
    (root / "pkg" / "f_bom_cookie.py").write_bytes(
        b"\xef\xbb\xbf# -*- coding: utf-8 -*-\nname = '\xc3\xa9t\xc3\xa9'\nx = name\nx += 'x'\n"
    )
    (root / "pkg" / "g_latin1.py").write_bytes(b"# -*- coding: latin-1 -*-\nname = '\xe9t\xe9'\nname += '!'\n")
    (root / "pkg" / "h_ok.py").write_text("y = 2\n")
    return root


EXPECTED_ERRORS = [
    {"path": "missing.py", "message": "no such file or directory"},
    {"path": "empty_dir", "message": "no Python files found"},
    {"path": "pkg/b_syntax.py", "message": "syntax error at line 2:6: '(' was never closed"},
    {
        "path": "pkg/c_undecodable.py",
        "message": "cannot decode as utf-8: invalid byte 0xff at line 1 (byte offset 5); declare the file's "
        "encoding with a '# -*- coding: NAME -*-' comment",
    },
    {"path": "pkg/d_binary.py", "message": "binary file (contains NUL bytes), not Python source"},
    {"path": "pkg/e_huge.py", "message": "file too large: 5000 bytes exceeds the 4000 bytes limit (max-file-size)"},
]


def test_version(tmp_path):
    proc = cli("--version", cwd=tmp_path)
    assert proc.returncode == 0 and proc.stdout == f"fixinplace {__version__}\n"


def test_help_lists_check(tmp_path):
    proc = cli("--help", cwd=tmp_path)
    assert proc.returncode == 0 and "check" in proc.stdout


@pytest.mark.parametrize(
    "args, fragment",
    [
        ((), "Missing command"),
        (("frobnicate",), "No such command"),
        (("check", "--frmat", "json", "."), "No such option: --frmat"),
        (("check", "--format", "xml", "."), "'xml' is not one of"),
        (("check", "--severity", "loud", "."), "--severity"),
        (("check", "--select", "E501", "."), "--select: unknown rule selector 'E501'"),
        (("check", "--ignore", "FIP7", "."), "--ignore: unknown rule selector 'FIP7'"),
        (("check", "--config", "nope.toml", "."), "nope.toml: config file not found"),
        (("check", "--jobs", "-3", "."), "--jobs"),
    ],
)
def test_usage_errors_are_one_line_exit_2(tmp_path, args, fragment):
    (tmp_path / "a.py").write_text("x = 1\n")
    assert fragment in one_line_error(cli(*args, cwd=tmp_path))


def test_clean_project_exits_0(tmp_path):
    (tmp_path / "a.py").write_text("import torch\nbuf = torch.zeros(3)\nbuf.add_(1)\n")
    (tmp_path / "b.py").write_text("print('hello')\n")
    proc = cli("check", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "All checks passed!\n" and proc.stderr == ""
    proc = cli("check", "--format", "json", ".", cwd=tmp_path)
    assert proc.returncode == 0 and json.loads(proc.stdout) == {"diagnostics": [], "errors": []}


def test_bad_inputs_json_one_error_each_others_still_checked(bad_inputs):
    proc = cli("check", "--format", "json", "missing.py", "empty_dir", "pkg", cwd=bad_inputs)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr == ""
    data = json.loads(proc.stdout)
    assert list(data) == ["diagnostics", "errors"]
    assert data["errors"] == EXPECTED_ERRORS
    assert all("\n" not in e["message"] for e in data["errors"])


def test_bad_inputs_text_one_line_each(bad_inputs):
    proc = cli("check", "missing.py", "empty_dir", "pkg", cwd=bad_inputs)
    assert proc.returncode == 2
    lines = proc.stdout.splitlines()
    for error in EXPECTED_ERRORS:
        assert f"{error['path']}: error: {error['message']}" in lines
    assert lines[-1] == "6 paths could not be checked (see the errors above)."


def test_good_files_alone_pass(bad_inputs):
    proc = cli("check", "pkg/a_ok.py", "pkg/f_bom_cookie.py", "pkg/g_latin1.py", "pkg/h_ok.py", cwd=bad_inputs)
    assert proc.returncode == 0, proc.stdout


def test_sarif_end_to_end_validates(bad_inputs):
    proc = cli("check", "--format", "sarif", "pkg", "missing.py", cwd=bad_inputs)
    assert proc.returncode == 2
    log = json.loads(proc.stdout)
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    jsonschema.validate(log, schema)
    notes = log["runs"][0]["invocations"][0]["toolExecutionNotifications"]
    assert len(notes) == 5 and log["runs"][0]["invocations"][0]["executionSuccessful"] is False


def test_github_end_to_end(bad_inputs):
    proc = cli("check", "--format", "github", "missing.py", cwd=bad_inputs)
    assert proc.returncode == 2
    assert proc.stdout == "::error file=missing.py,title=fixinplace::no such file or directory\n"


def test_output_file(bad_inputs, tmp_path):
    out = tmp_path / "report.json"
    proc = cli("check", "--format", "json", "--output-file", str(out), "pkg", cwd=bad_inputs)
    assert proc.returncode == 2 and proc.stdout == ""
    assert json.loads(out.read_text())["errors"] == EXPECTED_ERRORS[2:]


def test_quiet(bad_inputs):
    proc = cli("check", "--quiet", "pkg/b_syntax.py", "pkg/h_ok.py", cwd=bad_inputs)
    assert proc.returncode == 2
    assert proc.stdout == "pkg/b_syntax.py: error: syntax error at line 2:6: '(' was never closed\n"


def test_syntax_error_without_in_place_forms_never_passes(tmp_path):
    """The pre-filter skips the analysis of text with no in-place form, never the parse: `y = x.exp(` is an error
    (exit 2), not "All checks passed!"."""
    (tmp_path / "broken.py").write_text("import torch\ny = x.exp(\n")
    proc = cli("check", "broken.py", cwd=tmp_path)
    assert proc.returncode == 2, proc
    assert "broken.py: error: syntax error at line 2:" in proc.stdout + proc.stderr
    assert "All checks passed" not in proc.stdout


def test_a_pipe_is_read_once_whatever_the_cache(tmp_path):
    """`cat train.py | fixinplace check /dev/stdin`: a pipe is not a regular file, so the cache does not read it
    (the check must see its text), and the hazard is reported, cache on."""
    if not os.path.exists("/dev/stdin"):
        pytest.skip("no /dev/stdin here")
    source = "import torch\nx = torch.randn(3, requires_grad=True)\ny = x.exp()\ny.add_(1)\ny.sum().backward()\n"
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parent.parent))
    env.pop("FIXINPLACE_DEBUG", None)
    for _ in range(2):  # the second run would be the one answered from the cache
        proc = subprocess.run([sys.executable, "-m", "fixinplace", "check", "/dev/stdin"], input=source,
                              cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
        assert proc.returncode == 1, proc
        assert "/dev/stdin:4:1: FIP101 [error]" in proc.stdout


def test_unknown_config_key_names_file_and_key(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.fixinplace]\nseverity = 'error'\nselekt = ['FIP1']\n")
    (tmp_path / "a.py").write_text("x = 1\n")
    line = one_line_error(cli("check", ".", cwd=tmp_path))
    assert line.startswith("fixinplace: error: pyproject.toml: unknown key 'selekt' in [tool.fixinplace]")


def test_config_excludes_apply_and_cli_exclude_adds(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.fixinplace]\nextend-exclude = ['gen']\n")
    (tmp_path / "gen").mkdir()
    (tmp_path / "gen" / "bad.py").write_text("x += (\n")
    (tmp_path / "also_bad.py").write_text("x += (\n")
    (tmp_path / "ok.py").write_text("x = 1\n")
    proc = cli("check", "--format", "json", cwd=tmp_path)
    assert [e["path"] for e in json.loads(proc.stdout)["errors"]] == ["also_bad.py"]
    proc = cli("check", "--format", "json", "--exclude", "also_*.py", cwd=tmp_path)
    assert proc.returncode == 0 and json.loads(proc.stdout)["errors"] == []


def test_explicit_config_file(tmp_path):
    (tmp_path / "cfg.toml").write_text("[tool.fixinplace]\nextend-exclude = ['bad.py']\n")
    (tmp_path / "bad.py").write_text("x += (\n")
    (tmp_path / "ok.py").write_text("x = 1\n")
    assert cli("check", ".", cwd=tmp_path).returncode == 2
    assert cli("check", "--config", "cfg.toml", ".", cwd=tmp_path).returncode == 0


def test_gitignore_respected_by_cli(tmp_path):
    (tmp_path / ".gitignore").write_text("generated/\n")
    (tmp_path / "generated").mkdir()
    (tmp_path / "generated" / "bad.py").write_text("x += (\n")
    (tmp_path / "ok.py").write_text("x = 1\n")
    assert cli("check", cwd=tmp_path).returncode == 0


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_check_imports_no_heavy_modules(tmp_path, fmt):
    """`check` must not import torch, pygls or lsprotocol (fast start, works without torch); the text format not
    LibCST either (json checks the fix it shows for each diagnostic by rewriting the code: that needs LibCST)."""
    (tmp_path / "a.py").write_text("import torch\nx = torch.zeros(3)\nx.add_(1)\ny = x * 2\ny[0] = 1\n")
    proc = cli("check", "--format", fmt, "a.py", cwd=tmp_path, python_flags=("-X", "importtime"))
    assert proc.returncode in (0, 1), proc.stderr[-2000:]
    imported = {line.split("|")[-1].strip().split(".")[0] for line in proc.stderr.splitlines() if "|" in line}
    heavy = {"torch", "pygls", "lsprotocol", "numpy", "rich"} | ({"libcst"} if fmt == "text" else set())
    assert imported.isdisjoint(heavy), imported & heavy


def test_console_script_installed():
    script = Path(sys.executable).parent / ("fixinplace.exe" if os.name == "nt" else "fixinplace")
    if not script.exists():
        pytest.skip("the package is not installed in this environment (pip install -e '.[test]')")
    proc = subprocess.run([str(script), "--version"], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and proc.stdout == f"fixinplace {__version__}\n"


def test_a_check_imports_neither_pydantic_nor_libcst(tmp_path: Path) -> None:
    """A fresh `fixinplace check` of a file without findings imports only what it needs: not pydantic (typer 0.29
    builds pydantic adapters at its first parse, 0.2 s on every command; pyproject.toml keeps typer below it), not
    LibCST (only a fixable finding needs the fix stage), not torch."""
    (tmp_path / "clean.py").write_text("x = 1\n", encoding="utf-8")
    proc = subprocess.run([sys.executable, "-X", "importtime", "-m", "fixinplace", "check", "clean.py", "--no-cache"],
                          capture_output=True, text=True, cwd=tmp_path, env=child_env(), timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    imported = {line.split("|")[-1].strip() for line in proc.stderr.splitlines() if line.startswith("import time:")}
    assert "typer" in imported and "fixinplace.engine" in imported
    assert not {"pydantic", "libcst", "torch"} & imported, sorted({"pydantic", "libcst", "torch"} & imported)
