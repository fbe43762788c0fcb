"""The command line follows Ruff's conventions: `# noqa`, `[*]` fixable marks, stdin (`-`), `--statistics`,
`--exit-zero`, `--show-fixes`, `--output-file`, `--add-noqa`, per-file ignores, `extend-select`/`extend-ignore`,
`fixinplace.toml` discovery, `fixinplace rule`, `-V`/`version`, shell completion, `--color`, clean `--help`, the
pytest plugin's entry point, the pre-commit hooks, the GitHub Action and `--watch`. Every test runs the real
command in a subprocess."""

from __future__ import annotations

import ast
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml
import forkserver
from clirun import REPO, cli
from fixinplace.rules import RULES

# A write to the output of `exp` (FIP101, error) with a safe fix (clone where exp runs).
HAZARD = "import torch\nu = torch.ones(3, requires_grad=True)\nuexp = u.exp()\nuexp[0] = 666\nuexp.sum().backward()\n"
HAZARD_LINE = "uexp[0] = 666"
# A write to a module's input in forward: only an unsafe fix (the caller's tensor would no longer change).
UNSAFE_ONLY = (
    "import torch\nfrom torch import nn\n\n\nclass AddOne(nn.Module):\n    def forward(self, x):\n        x.add_(1)\n"
    "        return x * 2\n\n\ninp = torch.randn(3, requires_grad=True)\nAddOne()(inp).sum().backward()\n"
)


def with_comment(comment: str) -> str:
    return HAZARD.replace(HAZARD_LINE, f"{HAZARD_LINE}  {comment}")


def run_stdin(*args: str, data: str, cwd: Path, timeout: float = 300) -> subprocess.CompletedProcess:
    """`python -m fixinplace ARGS` with `data` on standard input."""
    return cli(*args, cwd=cwd, input=data, timeout=timeout)


# ---------------------------------------------------------------------------------------------------------------
# 1. `# noqa`


@pytest.mark.parametrize("comment", ["# noqa", "# noqa: FIP101", "# NOQA:FIP101,E501", "# noqa: E501 FIP101",
                                     "# type: ignore  # noqa"])
def test_noqa_suppresses_like_the_tools_own_comment(tmp_path, comment):
    (tmp_path / "m.py").write_text(with_comment(comment))
    proc = cli("check", "m.py", "--no-cache", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout == "All checks passed!\n"


@pytest.mark.parametrize("comment", ["# noqa: E501", "# noqa: FIP102", "# noqa123", "# see noqa docs"])
def test_noqa_for_other_codes_suppresses_nothing(tmp_path, comment):
    (tmp_path / "m.py").write_text(with_comment(comment))
    proc = cli("check", "m.py", "--no-cache", cwd=tmp_path)
    assert proc.returncode == 1 and "m.py:4:1: FIP101" in proc.stdout, proc.stdout + proc.stderr


def test_noqa_is_honoured_by_fix_too(tmp_path):
    (tmp_path / "m.py").write_text(with_comment("# noqa: FIP101"))
    proc = cli("fix", "m.py", cwd=tmp_path)
    assert proc.returncode == 0 and proc.stdout == "", proc.stdout + proc.stderr


# ---------------------------------------------------------------------------------------------------------------
# 2. `[*]` and the fixable count


def test_text_report_marks_fixable_diagnostics_and_counts_them(tmp_path):
    (tmp_path / "safe.py").write_text(HAZARD)
    (tmp_path / "unsafe.py").write_text(UNSAFE_ONLY)
    proc = cli("check", ".", "--no-cache", cwd=tmp_path)
    assert proc.returncode == 1, proc.stderr
    lines = proc.stdout.splitlines()
    assert any(line.startswith("safe.py:4:1: FIP101 [error] [*] ") for line in lines), proc.stdout
    unsafe = [line for line in lines if line.startswith("unsafe.py:7:9: FIP102")]
    assert unsafe and "[*]" not in unsafe[0]  # an unsafe fix is not applied by `fix --apply`
    assert lines[-1] == "[*] 1 fixable with `fixinplace fix --apply` (1 more with `--unsafe-fixes`)."
    # With unsafe fixes on, both are fixable.
    both = cli("check", ".", "--no-cache", "--unsafe-fixes", cwd=tmp_path)
    assert both.stdout.splitlines()[-1] == "[*] 2 fixable with `fixinplace fix --apply`."


def test_fixable_count_matches_what_fix_apply_fixes(tmp_path):
    (tmp_path / "safe.py").write_text(HAZARD)
    proc = cli("fix", ".", "--apply", cwd=tmp_path)
    assert proc.returncode == 0 and proc.stdout.startswith("Fixed 1 hazard in 1 file."), proc.stdout + proc.stderr
    assert cli("check", ".", "--no-cache", cwd=tmp_path).stdout == "All checks passed!\n"


def test_fip101_message_says_what_to_do(tmp_path):
    (tmp_path / "m.py").write_text(HAZARD)
    out = cli("check", "m.py", "--no-cache", "-q", cwd=tmp_path).stdout
    assert "Write `uexp` out of place instead (into a new tensor), or clone `exp`'s result where it is made " \
           "(`.clone()`)" in out, out


# ---------------------------------------------------------------------------------------------------------------
# 3. standard input


def test_check_stdin_with_a_filename_for_display_config_and_exclusion(tmp_path):
    sub = tmp_path / "sub"
    sub.mkdir()
    proc = run_stdin("check", "-", "--stdin-filename", "sub/train.py", "--no-cache", data=HAZARD, cwd=tmp_path)
    assert proc.returncode == 1 and "sub/train.py:4:1: FIP101 [error] [*]" in proc.stdout, proc
    plain = run_stdin("check", "-", data=HAZARD, cwd=tmp_path)
    assert plain.returncode == 1 and plain.stdout.startswith("-:4:1: FIP101"), plain
    # The config is looked up from the named file's folder ...
    (sub / "fixinplace.toml").write_text('ignore = ["FIP101"]\n')
    ignored = run_stdin("check", "-", "--stdin-filename", "sub/train.py", data=HAZARD, cwd=tmp_path)
    assert ignored.returncode == 0 and ignored.stdout == "All checks passed!\n", ignored
    # ... and an excluded name is not checked.
    (sub / "fixinplace.toml").write_text('extend-exclude = ["generated/"]\n')
    (sub / "generated").mkdir()
    excluded = run_stdin("check", "--stdin-filename", "sub/generated/x.py", data=HAZARD, cwd=tmp_path)
    assert excluded.returncode == 0, excluded


def test_fix_stdin_prints_the_fixed_code(tmp_path):
    proc = run_stdin("fix", "-", "--stdin-filename", "train.py", data=HAZARD, cwd=tmp_path)
    assert proc.returncode == 0, proc
    ast.parse(proc.stdout)
    assert proc.stdout != HAZARD and HAZARD_LINE in proc.stdout
    assert proc.stderr.startswith("Fixed 1 hazard.")
    again = run_stdin("check", "-", data=proc.stdout, cwd=tmp_path)
    assert again.returncode == 0, again
    # Code that cannot be fixed goes through unchanged, with the reason on stderr.
    bad = run_stdin("fix", "-", data="def f(:\n", cwd=tmp_path)
    assert bad.returncode == 2 and bad.stdout == "def f(:\n" and bad.stderr.startswith("-: error: syntax error")


def test_stdin_cannot_be_mixed_with_paths_nor_file_only_flags(tmp_path):
    (tmp_path / "m.py").write_text("x = 1\n")
    proc = run_stdin("check", "-", "m.py", data="", cwd=tmp_path)
    assert proc.returncode == 2 and proc.stderr.startswith("fixinplace: error: `-` (standard input) cannot")
    for args in (("check", "-", "--add-noqa"), ("check", "-", "--watch"), ("fix", "-", "--verify"),
                 ("check", "m.py", "--stdin-filename", "x.py")):
        proc = run_stdin(*args, data=HAZARD, cwd=tmp_path)
        assert proc.returncode == 2 and len(proc.stderr.splitlines()) == 1, (args, proc.stderr)
        assert proc.stderr.startswith("fixinplace: error: ") and proc.stdout == ""


# ---------------------------------------------------------------------------------------------------------------
# 4. --statistics, --exit-zero, --show-fixes, --output-file, --add-noqa


def test_statistics_counts_each_code(tmp_path):
    (tmp_path / "a.py").write_text(HAZARD)
    (tmp_path / "b.py").write_text(HAZARD)
    (tmp_path / "c.py").write_text(UNSAFE_ONLY)
    proc = cli("check", ".", "--statistics", "--no-cache", cwd=tmp_path)
    assert proc.returncode == 1
    # As Ruff: the rows, then the totals, in the words of the report without --statistics.
    totals = ["Found 3 errors, 0 warnings in 3 files.",
              "[*] 2 fixable with `fixinplace fix --apply` (1 more with `--unsafe-fixes`)."]
    assert proc.stdout.splitlines() == ["2\tFIP101\t[*] saved-tensor-mutated", "1\tFIP102\t[ ] leaf-mutated", *totals]
    assert cli("check", ".", "--no-cache", cwd=tmp_path).stdout.splitlines()[-2:] == totals
    clean = tmp_path / "clean"
    clean.mkdir()
    (clean / "ok.py").write_text("import torch\n")
    assert cli("check", ".", "--statistics", cwd=clean).stdout == "All checks passed!\n"
    rows = json.loads(cli("check", ".", "--statistics", "--format", "json", cwd=tmp_path).stdout)
    assert rows == [{"code": "FIP101", "name": "saved-tensor-mutated", "count": 2, "fixable": True},
                    {"code": "FIP102", "name": "leaf-mutated", "count": 1, "fixable": False}]


def test_exit_zero_keeps_the_report_but_not_the_status(tmp_path):
    (tmp_path / "a.py").write_text(HAZARD)
    proc = cli("check", "a.py", "--exit-zero", cwd=tmp_path)
    assert proc.returncode == 0 and "FIP101" in proc.stdout
    missing = cli("check", "nope.py", "--exit-zero", cwd=tmp_path)
    assert missing.returncode == 2  # a path that cannot be checked still fails


def test_show_fixes_prints_each_fix(tmp_path):
    (tmp_path / "a.py").write_text(HAZARD)
    out = cli("check", "a.py", "--show-fixes", "--no-cache", cwd=tmp_path).stdout
    assert re.search(r"^  = help: Clone `uexp` before the write, .* \(safe fix\)$", out, re.M), out
    fixed = cli("fix", "a.py", "--show-fixes", cwd=tmp_path)
    assert re.search(r"^  a\.py:4:1: FIP101 Clone `uexp`", fixed.stderr, re.M), fixed.stderr


def test_output_file_on_every_reporting_command(tmp_path):
    (tmp_path / "a.py").write_text(HAZARD)
    assert cli("check", "a.py", "-o", "check.txt", cwd=tmp_path).stdout == ""
    assert "a.py:4:1: FIP101" in (tmp_path / "check.txt").read_text()
    assert cli("fix", "a.py", "--output-file", "fix.diff", cwd=tmp_path).returncode == 1
    assert (tmp_path / "fix.diff").read_text().startswith("--- a/a.py\n+++ b/a.py\n")
    assert cli("rule", "FIP102", "-o", "rule.md", cwd=tmp_path).returncode == 0
    assert (tmp_path / "rule.md").read_text().startswith("# leaf-mutated (FIP102)\n")
    proc = cli("verify", "a.py", "--format", "json", "-o", "verify.json", cwd=tmp_path, timeout=600)
    assert proc.stdout == "" and json.loads((tmp_path / "verify.json").read_text())["results"], proc.stderr
    bad = cli("check", "a.py", "-o", "no/such/folder/x.txt", cwd=tmp_path)
    assert bad.returncode == 2 and bad.stderr.startswith("fixinplace: error: no/such/folder/x.txt: cannot write")


def test_add_noqa_suppresses_every_diagnostic_and_is_idempotent(tmp_path):
    merged = HAZARD.replace("uexp.sum().backward()", "uexp.sum().backward()").replace(
        HAZARD_LINE, f"{HAZARD_LINE}  # keep # fixinplace: ignore[FIP104]")
    (tmp_path / "a.py").write_text(merged)
    (tmp_path / "b.py").write_text(UNSAFE_ONLY)
    (tmp_path / "crlf.py").write_bytes(HAZARD.replace("\n", "\r\n").encode())
    proc = cli("check", ".", "--add-noqa", "--no-cache", cwd=tmp_path)
    assert proc.returncode == 0 and proc.stdout == "Added 3 suppression comments to 3 files.\n", proc
    a = (tmp_path / "a.py").read_text()
    assert f"{HAZARD_LINE}  # keep # fixinplace: ignore[FIP101, FIP104]\n" in a
    assert "        x.add_(1)  # fixinplace: ignore[FIP102]\n" in (tmp_path / "b.py").read_text()
    assert (tmp_path / "crlf.py").read_bytes().count(b"\r\n") == HAZARD.count("\n")  # line endings kept
    for name in ("a.py", "b.py", "crlf.py"):
        ast.parse((tmp_path / name).read_text())
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]
    assert cli("check", ".", "--no-cache", cwd=tmp_path).returncode == 0
    before = {p.name: p.read_bytes() for p in tmp_path.glob("*.py")}
    again = cli("check", ".", "--add-noqa", "--no-cache", cwd=tmp_path)
    assert again.stdout == "Added 0 suppression comments to 0 files.\n"
    assert {p.name: p.read_bytes() for p in tmp_path.glob("*.py")} == before


def test_add_noqa_never_comments_inside_a_string(tmp_path):
    source = ("import torch\nu = torch.ones(3, requires_grad=True)\nuexp = u.exp()\n"
              "uexp.add_(len('''a\nb''')); y = 1\nuexp.sum().backward()\n")
    (tmp_path / "m.py").write_text(source)
    proc = cli("check", "m.py", "--add-noqa", "--no-cache", cwd=tmp_path)
    text = (tmp_path / "m.py").read_text()
    ast.parse(text)
    assert "'''a\nb'''" in text  # the string is unchanged
    assert proc.returncode == 0 and "b''')); y = 1  # fixinplace: ignore[FIP101]\n" in text, (proc, text)


# ---------------------------------------------------------------------------------------------------------------
# 5. per-file-ignores, extend-select / extend-ignore, fixinplace.toml


def test_per_file_ignores_from_config_and_command_line(tmp_path):
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "t.py").write_text(HAZARD)
    (tmp_path / "m.py").write_text(HAZARD)
    (tmp_path / "pyproject.toml").write_text('[tool.fixinplace]\nper-file-ignores = { "tests/*" = ["FIP101"] }\n')
    out = cli("check", ".", "-q", "--no-cache", cwd=tmp_path).stdout
    assert "m.py:4:1: FIP101" in out and "tests/t.py" not in out
    both = cli("check", ".", "-q", "--per-file-ignores", "m.py:FIP1", cwd=tmp_path)
    assert both.returncode == 0, both.stdout
    bad = cli("check", ".", "--per-file-ignores", "m.py", cwd=tmp_path)
    assert bad.returncode == 2 and "--per-file-ignores: expected GLOB:CODES" in bad.stderr
    # A negated glob applies to the files it does not match.
    (tmp_path / "pyproject.toml").write_text('[tool.fixinplace]\nper-file-ignores = { "!tests/*" = ["FIP1"] }\n')
    out = cli("check", ".", "-q", "--no-cache", cwd=tmp_path).stdout
    assert "tests/t.py:4:1: FIP101" in out and "m.py" not in out.replace("tests/t.py", "")


def test_extend_select_and_extend_ignore(tmp_path):
    (tmp_path / "m.py").write_text(HAZARD + "buf = torch.zeros(3)\nbuf.add_(1)\n")
    (tmp_path / "fixinplace.toml").write_text('severity = "info"\nextend-ignore = ["FIP9"]\n')
    out = cli("check", "m.py", "-q", "--no-cache", cwd=tmp_path).stdout
    assert "FIP101" in out and "FIP900" not in out
    out = cli("check", "m.py", "-q", "--no-cache", "--extend-ignore", "FIP101", cwd=tmp_path).stdout
    assert out == ""
    # extend-select is more specific than the ignored prefix: FIP900 comes back.
    out = cli("check", "m.py", "-q", "--no-cache", "--ignore", "FIP", "--extend-select", "FIP900", cwd=tmp_path).stdout
    assert "FIP900" in out and "FIP101" not in out


def test_config_file_precedence_in_one_folder(tmp_path):
    (tmp_path / "m.py").write_text(HAZARD)
    (tmp_path / "pyproject.toml").write_text('[tool.fixinplace]\nselect = ["FIP102"]\n')
    assert cli("check", "m.py", "--no-cache", cwd=tmp_path).returncode == 0  # pyproject: FIP101 not selected
    (tmp_path / "fixinplace.toml").write_text('select = ["FIP101"]\n')
    assert cli("check", "m.py", "--no-cache", cwd=tmp_path).returncode == 1  # fixinplace.toml wins
    (tmp_path / ".fixinplace.toml").write_text('ignore = ["FIP1"]\n')
    assert cli("check", "m.py", "--no-cache", cwd=tmp_path).returncode == 0  # .fixinplace.toml wins
    (tmp_path / ".fixinplace.toml").write_text('[tool.fixinplace]\nignore = ["FIP1"]\n')
    err = cli("check", "m.py", cwd=tmp_path)
    assert err.returncode == 2 and err.stderr.startswith("fixinplace: error: .fixinplace.toml: unknown key 'tool'")
    explicit = cli("check", "m.py", "--no-cache", "--config", "fixinplace.toml", cwd=tmp_path)
    assert explicit.returncode == 1


# ---------------------------------------------------------------------------------------------------------------
# 6. fixinplace rule


def test_rule_explains_one_rule_or_all(tmp_path):
    proc = cli("rule", "FIP101", cwd=tmp_path)
    assert proc.returncode == 0
    assert proc.stdout.startswith("# saved-tensor-mutated (FIP101)\n\nDefault severity: error.\n")
    assert "uexp[0] = 666  # expect: FIP101" in proc.stdout and "```python" in proc.stdout
    assert cli("rule", "leaf-mutated", cwd=tmp_path).stdout.startswith("# leaf-mutated (FIP102)")
    every = json.loads(cli("rule", "--all", "--output-format", "json", cwd=tmp_path).stdout)
    assert [r["code"] for r in every] == [rule.code for rule in RULES] and "FIP101" in [r["code"] for r in every]
    one = json.loads(cli("rule", "fip103", "--output-format", "json", cwd=tmp_path).stdout)
    assert one["name"] == "parameters-updated-before-backward" and one["flagged"]
    unknown = cli("rule", "FIP999", cwd=tmp_path)
    assert unknown.returncode == 2 and unknown.stderr.startswith("fixinplace: error: unknown rule 'FIP999'")


# ---------------------------------------------------------------------------------------------------------------
# 7. version, completion, colour, `fix` on the current folder


def test_version_flags_and_command(tmp_path):
    from fixinplace import __version__

    for args in (["-V"], ["--version"], ["version"]):
        proc = cli(*args, cwd=tmp_path)
        assert proc.returncode == 0 and proc.stdout == f"fixinplace {__version__}\n"
    assert json.loads(cli("version", "--output-format", "json", cwd=tmp_path).stdout) == {"version": __version__}


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_shell_completion_scripts(tmp_path, shell):
    proc = cli("generate-shell-completion", shell, cwd=tmp_path)
    assert proc.returncode == 0 and "_FIXINPLACE_COMPLETE" in proc.stdout and "fixinplace" in proc.stdout


def test_bash_completion_script_completes_commands_and_options(tmp_path):
    script = cli("generate-shell-completion", "bash", cwd=tmp_path).stdout
    assert subprocess.run(["bash", "-n"], input=script, text=True).returncode == 0
    env = dict(os.environ, _FIXINPLACE_COMPLETE="complete_bash", COMP_WORDS="fixinplace ch", COMP_CWORD="1")
    assert cli(cwd=tmp_path, env=env).stdout.split() == ["check"]
    env.update(COMP_WORDS="fixinplace check --stat", COMP_CWORD="2")
    assert cli(cwd=tmp_path, env=env).stdout.split() == ["--statistics"]


def test_zsh_and_fish_completion_requests(tmp_path):
    zsh = dict(os.environ, _FIXINPLACE_COMPLETE="complete_zsh", _TYPER_COMPLETE_ARGS="fixinplace ch")
    assert '"check":"Report the in-place tensor writes' in cli(cwd=tmp_path, env=zsh).stdout
    fish = dict(os.environ, _FIXINPLACE_COMPLETE="complete_fish", _TYPER_COMPLETE_FISH_ACTION="get-args",
                _TYPER_COMPLETE_ARGS="fixinplace check --form")
    assert cli(cwd=tmp_path, env=fish).stdout.startswith("--format\tReport format.")
    choices = dict(os.environ, _FIXINPLACE_COMPLETE="complete_bash", COMP_WORDS="fixinplace check --format ",
                   COMP_CWORD="3")
    assert cli(cwd=tmp_path, env=choices).stdout.split() == ["text", "json", "sarif", "github"]


def test_color_always_never_and_auto(tmp_path):
    (tmp_path / "a.py").write_text(HAZARD)
    assert "\x1b[" in cli("check", "a.py", "--color", "always", cwd=tmp_path).stdout
    forced = dict(os.environ, FORCE_COLOR="1")
    assert "\x1b[" not in cli("check", "a.py", "--color", "never", cwd=tmp_path, env=forced).stdout
    # auto: not a terminal here, so no colour unless FORCE_COLOR; NO_COLOR wins over FORCE_COLOR.
    assert "\x1b[" not in cli("check", "a.py", cwd=tmp_path).stdout
    env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
    env["FORCE_COLOR"] = "1"
    proc = subprocess.run([sys.executable, "-m", "fixinplace", "check", "a.py"], cwd=tmp_path, capture_output=True,
                          text=True, env=dict(env, PYTHONPATH=str(REPO)))
    assert "\x1b[" in proc.stdout
    proc = subprocess.run([sys.executable, "-m", "fixinplace", "check", "a.py"], cwd=tmp_path, capture_output=True,
                          text=True, env=dict(env, PYTHONPATH=str(REPO), NO_COLOR="1"))
    assert "\x1b[" not in proc.stdout


def test_fix_defaults_to_the_current_folder(tmp_path):
    (tmp_path / "a.py").write_text(HAZARD)
    proc = cli("fix", cwd=tmp_path)
    assert proc.returncode == 1 and proc.stdout.startswith("--- a/a.py\n"), proc.stdout + proc.stderr
    assert proc.stderr.splitlines()[-1] == \
        "Exit status 1: there are fixes to make; `fixinplace fix --apply` writes them."


def test_fix_takes_no_cache_like_check(tmp_path):
    (tmp_path / "a.py").write_text(HAZARD)
    for command in ("check", "fix"):
        help_text = cli(command, "--help", cwd=tmp_path).stdout
        assert "--no-cache" in help_text and "Neither read nor write the cache" in help_text, command
    proc = cli("fix", "--apply", "--no-cache", ".", cwd=tmp_path)
    assert proc.returncode == 0 and proc.stdout == "Fixed 1 hazard in 1 file.\n", proc.stdout + proc.stderr
    assert not (tmp_path / ".fixinplace_cache").exists()
    assert cli("check", "--no-cache", ".", cwd=tmp_path).stdout == "All checks passed!\n"


def test_fix_summary_instead_of_the_diff(tmp_path):
    (tmp_path / "a.py").write_text(HAZARD)
    proc = cli("fix", "--summary", cwd=tmp_path)
    assert proc.returncode == 1 and proc.stderr == ""
    assert proc.stdout == ("Would fix 1 hazard in 1 file.\n"
                           "Exit status 1: there are fixes to make; `fixinplace fix --apply` writes them.\n")
    lines = cli("fix", "--summary", "--show-fixes", cwd=tmp_path).stdout.splitlines()
    assert lines[1].startswith("  a.py:4:1: FIP101 Clone `uexp` before the write")
    assert (tmp_path / "a.py").read_text() == HAZARD


# ---------------------------------------------------------------------------------------------------------------
# 8. --help


@pytest.mark.parametrize("command", ["check", "fix", "verify", "trace"])
def test_help_shows_no_types_and_the_exit_codes(tmp_path, command):
    proc = cli(command, "--help", cwd=tmp_path)
    assert proc.returncode == 0
    assert "list[str]" not in proc.stdout and "{" not in proc.stdout.splitlines()[0], proc.stdout
    assert "Exit status:" in proc.stdout and re.search(r"^\s+2\s+", proc.stdout, re.M), proc.stdout


def test_usage_errors_do_not_leak_the_validation_library(tmp_path):
    for args, expected in ((["check", "--format", "xml"], "'xml' is not one of"),
                           (["check", "--jobs", "x"], "'x' is not a valid int")):
        proc = cli(*args, cwd=tmp_path)
        assert proc.returncode == 2 and expected in proc.stderr and "Value error" not in proc.stderr, proc.stderr
        assert "Input should be" not in proc.stderr


# ---------------------------------------------------------------------------------------------------------------
# 12. --watch


def _read_until(proc: subprocess.Popen, marker: str, deadline: float) -> str:
    seen = ""
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        seen += line
        if marker in line:
            return seen
    raise AssertionError(f"no {marker!r} in the watch output: {seen!r}")


def test_watch_checks_again_after_a_change(tmp_path):
    target = tmp_path / "a.py"
    target.write_text("import torch\nx = torch.ones(3)\n")
    config = tmp_path / "fixinplace.toml"  # created while watching: it is read too
    env = dict(os.environ, PYTHONPATH=str(REPO))
    env.pop("FORCE_COLOR", None)
    proc = subprocess.Popen([sys.executable, "-m", "fixinplace", "check", "--watch", "a.py", "--no-cache"],
                            cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        deadline = time.monotonic() + 120
        assert "All checks passed!" in _read_until(proc, "All checks passed!", deadline)
        target.write_text(HAZARD)
        report = _read_until(proc, "Found 1 error", deadline)
        assert "a.py:4:1: FIP101" in report and "Checked 1 file." in report
        # A change to the configuration is read too.
        config.write_text('severity = "warning"\nignore = ["FIP101"]\n')
        assert "All checks passed!" in _read_until(proc, "All checks passed!", deadline)
    finally:
        proc.kill()
        proc.wait(timeout=30)


# ---------------------------------------------------------------------------------------------------------------
# 9. the pytest plugin's entry point


def _installed_entry_point() -> bool:
    from importlib.metadata import entry_points

    return any(ep.value == "fixinplace.pytest_plugin" for ep in entry_points(group="pytest11"))


def test_pytest_plugin_is_declared_as_a_pytest11_entry_point():
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover
        import tomli as tomllib
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert project["entry-points"]["pytest11"] == {"fixinplace.pytest_plugin": "fixinplace.pytest_plugin"}


def test_pytest_fixinplace_trace_works_without_dash_p(tmp_path):
    if not _installed_entry_point():
        pytest.skip("the package's entry points are not installed here (pip install -e .)")
    (tmp_path / "test_model.py").write_text(
        "import torch\n\n\ndef test_bad():\n    x = torch.randn(3, requires_grad=True)\n    y = x.tanh()\n"
        "    y.detach().zero_()\n    try:\n        y.sum().backward()\n    except RuntimeError:\n        pass\n")
    env = dict(os.environ, PYTHONPATH=str(REPO))
    # pytest as a fork of the tests' server that imported torch (`forkserver.py`): its plugins load as in a fresh one.
    base = [sys.executable, forkserver.CLIENT, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_model.py"]
    proc = subprocess.run(base + ["--fixinplace-trace"], capture_output=True, text=True, env=env, cwd=tmp_path,
                          timeout=300)
    assert proc.returncode == 1 and "= fixinplace trace =" in proc.stdout, proc.stdout + proc.stderr
    assert "test_model.py:7: `zero_` wrote a tensor saved for backward" in proc.stdout
    # `-p fixinplace.pytest_plugin` (the documented form before the entry point) still works: one registration.
    both = subprocess.run(base + ["-p", "fixinplace.pytest_plugin", "--fixinplace-trace"], capture_output=True,
                          text=True, env=env, cwd=tmp_path, timeout=300)
    assert both.returncode == 1 and "= fixinplace trace =" in both.stdout, both.stdout + both.stderr


def test_pytest_plugin_does_nothing_without_its_option(tmp_path):
    if not _installed_entry_point():
        pytest.skip("the package's entry points are not installed here (pip install -e .)")
    (tmp_path / "test_plain.py").write_text(
        "import sys\n\n\ndef test_loaded_and_idle():\n"
        "    assert 'fixinplace.pytest_plugin' in sys.modules  # loaded through the entry point\n"
        "    heavy = {'torch', 'fixinplace.trace', 'fixinplace.cli', 'typer'} & set(sys.modules)\n"
        "    assert not heavy, heavy\n")
    env = dict(os.environ, PYTHONPATH=str(REPO))
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_plain.py"],
                          capture_output=True, text=True, env=env, cwd=tmp_path, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    # Its own import costs little: it imports pytest (already loaded) and nothing else.
    timing = subprocess.run([sys.executable, "-X", "importtime", "-c", "import pytest; import fixinplace.pytest_plugin"],
                            capture_output=True, text=True, env=env, timeout=120)
    rows = [line.split("|") for line in timing.stderr.splitlines() if line.rstrip().endswith("fixinplace.pytest_plugin")]
    assert rows and int(rows[0][1]) < 50_000, timing.stderr[-2000:]  # cumulative microseconds


# ---------------------------------------------------------------------------------------------------------------
# 10. pre-commit hooks


def _hooks() -> dict:
    return {h["id"]: h for h in yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))}


def test_fix_hook_applies_safe_fixes_to_the_staged_files(tmp_path):
    import shlex

    hook = _hooks()["fixinplace-fix"]
    assert hook["language"] == "python" and hook["types_or"] == ["python", "jupyter"]
    program, *args = shlex.split(hook["entry"])
    assert program == "fixinplace" and "--apply" in args and "--unsafe-fixes" not in args
    (tmp_path / "safe.py").write_text(HAZARD)
    (tmp_path / "unsafe.py").write_text(UNSAFE_ONLY)
    proc = cli(*args, "safe.py", "unsafe.py", cwd=tmp_path)
    assert proc.returncode == 1  # pre-commit fails the commit: a file changed, and a hazard remains
    assert (tmp_path / "safe.py").read_text() != HAZARD and (tmp_path / "unsafe.py").read_text() == UNSAFE_ONLY
    assert cli(*args, "safe.py", cwd=tmp_path).returncode == 0  # the second run has nothing left to do


def test_docs_precommit_snippet_names_a_rev_and_both_hooks():
    ci = (REPO / "docs" / "ci.md").read_text(encoding="utf-8")
    snippet = re.search(r"```yaml\n(repos:.*?)```", ci, re.S)
    assert snippet, "docs/ci.md has a .pre-commit-config.yaml snippet"
    config = yaml.safe_load(snippet.group(1))
    repo = config["repos"][0]
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover
        import tomli as tomllib
    version = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"]
    assert repo["rev"] == f"v{version}"  # the tag to create for this version
    assert {h["id"] for h in repo["hooks"]} <= set(_hooks())


# ---------------------------------------------------------------------------------------------------------------
# 11. the GitHub Action


def test_action_is_a_composite_action_that_installs_from_its_path_and_runs_check():
    action = yaml.safe_load((REPO / "action.yml").read_text(encoding="utf-8"))
    assert {"name", "description", "inputs", "runs"} <= set(action)
    assert action["runs"]["using"] == "composite"
    assert {"args", "src", "version"} <= set(action["inputs"])
    for name, spec in action["inputs"].items():
        assert "description" in spec and "default" in spec, name
    steps = action["runs"]["steps"]
    assert all("shell" in step for step in steps if "run" in step)  # composite run steps need a shell
    script = "\n".join(step.get("run", "") for step in steps)
    assert "${{ github.action_path }}" in yaml.safe_dump(steps) and "torch" not in script
    assert "fixinplace check" in script and "--format github" in script
    for name in action["inputs"]:
        assert f"inputs.{name}" in yaml.safe_dump(steps), f"input {name} is never used"


def test_action_run_step_works_as_a_shell_script(tmp_path):
    """The action's check step, with its inputs substituted as GitHub would, run by bash in a checkout."""
    action = yaml.safe_load((REPO / "action.yml").read_text(encoding="utf-8"))
    step = next(s for s in action["runs"]["steps"] if "fixinplace check" in s.get("run", ""))
    env = dict(os.environ, PYTHONPATH=str(REPO))
    env.update({k: str(v) for k, v in step.get("env", {}).items()})
    values = {"inputs.args": "--no-cache", "inputs.src": "src", "inputs.version": "", "github.action_path": str(REPO)}
    for key, value in list(env.items()):
        env[key] = re.sub(r"\$\{\{\s*([\w.]+)\s*\}\}", lambda m: values.get(m.group(1), ""), value)
    script = re.sub(r"\$\{\{\s*([\w.]+)\s*\}\}", lambda m: values.get(m.group(1), ""), step["run"])
    script = script.replace("fixinplace check", f"{sys.executable} -m fixinplace check")
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "m.py").write_text(HAZARD)
    proc = subprocess.run(["bash", "-c", script], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert proc.stdout.startswith("::error file=src/m.py,line=4,"), proc.stdout
