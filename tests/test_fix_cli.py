"""`fixinplace fix`, run for real in subprocesses on real files (the rule examples and fixtures/check/ as inputs).

The before/after pairs of every strategy and the runs under torch are in test_fix_fixtures.py; these tests are
about the command: the diff, `--apply`, exit codes, safe vs unsafe fixes, and what is preserved in the files
(line endings, encoding, BOM, permissions, symlinks), and the files it must refuse or leave alone.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from clirun import cli
import unidiff

from codemods import CODEMODS
from fixinplace.rules import RULES

REPO = Path(__file__).resolve().parent.parent
CHECK_DIR = REPO / "fixtures" / "check"

RULE = {rule.code: rule for rule in RULES}
# uexp = u.exp(); uexp[0] = 666; nothing reads uexp afterwards: fixed by cloning exp's output where it is made
SAVED = RULE["FIP101"].flagged[0]
# v.add_(1) with v saved by pow, v not read afterwards: fixed by cloning the input pow saves, `v.clone() ** 2`
METHOD = RULE["FIP101"].flagged[1]
LEAF = RULE["FIP102"].flagged[0]  # w.add_(1) on a leaf: fixed by wrapping it in `with torch.no_grad():`
CLEAN = RULE["FIP101"].clean[0]
#: A write into a function's argument, a caller's leaf: its only fix is unsafe (the caller would no longer see the
#: write).
ARGUMENT = CHECK_DIR / "009_seed002_add_inplace_forward_leaf.py"


def cli_bytes(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    return subprocess.run(
        [sys.executable, "-m", "fixinplace", *args], cwd=cwd, capture_output=True, env=env, timeout=300
    )


def snapshot(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def fixed_with_lf(tmp_path: Path, program: str, *flags: str) -> str:
    """What `fix --apply` makes of `program` written with LF line endings in UTF-8 (the reference text)."""
    folder = tmp_path / "reference"
    folder.mkdir(exist_ok=True)
    f = folder / "ref.py"
    f.write_bytes(program.encode())
    proc = cli("fix", "--apply", *flags, "ref.py", cwd=folder)
    assert proc.returncode in (0, 1), proc.stderr
    text = f.read_bytes().decode()
    assert text != program, "the reference program was not fixed"
    return text


# ---------------------------------------------------------------------------------------------------------------
# Diff mode


def test_diff_is_printed_and_nothing_changes(tmp_path):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "saved.py").write_text(SAVED)
    (tmp_path / "pkg" / "leaf.py").write_text(LEAF)
    (tmp_path / "pkg" / "clean.py").write_text(CLEAN)
    before = snapshot(tmp_path)
    proc = cli("fix", "pkg", cwd=tmp_path)
    assert proc.returncode == 1, proc.stderr
    assert snapshot(tmp_path) == before
    patch_set = unidiff.PatchSet(proc.stdout)
    assert [(p.source_file, p.target_file) for p in patch_set] == [
        ("a/pkg/leaf.py", "b/pkg/leaf.py"),
        ("a/pkg/saved.py", "b/pkg/saved.py"),
    ]
    assert proc.stdout.startswith("--- a/pkg/leaf.py\n+++ b/pkg/leaf.py\n@@ ")
    assert "+with torch.no_grad():\n+    w.add_(1)  # expect: FIP102\n" in proc.stdout
    assert "+uexp = u.exp().clone()\n" in proc.stdout
    assert proc.stderr == ("Would fix 2 hazards in 2 files.\n"
                           "Exit status 1: there are fixes to make; `fixinplace fix --apply` writes them.\n")


def test_empty_diff_exits_0(tmp_path):
    (tmp_path / "clean.py").write_text(CLEAN)
    (tmp_path / "plain.py").write_text("x = 1\n")
    proc = cli("fix", ".", cwd=tmp_path)
    assert (proc.returncode, proc.stdout) == (0, ""), proc.stderr
    assert proc.stderr == "Would fix 0 hazards in 0 files.\n"
    assert cli("fix", "--quiet", ".", cwd=tmp_path).stderr == ""


def test_absolute_paths_are_shown_relative_to_the_working_directory(tmp_path):
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "leaf.py").write_text(LEAF)
    proc = cli("fix", str(tmp_path / "sub" / "leaf.py"), cwd=tmp_path)
    assert proc.stdout.startswith("--- a/sub/leaf.py\n+++ b/sub/leaf.py\n")
    proc = cli("fix", str(tmp_path / "sub" / "leaf.py"), cwd=tmp_path / "sub")
    assert proc.stdout.startswith("--- a/leaf.py\n+++ b/leaf.py\n")


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_printed_diff_applies_like_apply(tmp_path):
    """`fix > d && git apply d` gives the same bytes as `fix --apply`, for every fixture that has a fix."""
    by_diff, by_apply = tmp_path / "by_diff", tmp_path / "by_apply"
    shutil.copytree(CHECK_DIR, by_diff / "check", ignore=shutil.ignore_patterns("*.json"))
    shutil.copytree(CHECK_DIR, by_apply / "check", ignore=shutil.ignore_patterns("*.json"))
    diff = cli_bytes("fix", "check", cwd=by_diff)
    assert diff.returncode == 1 and diff.stdout, diff.stderr
    (tmp_path / "fix.diff").write_bytes(diff.stdout)
    subprocess.run(["git", "init", "-q", "."], cwd=by_diff, check=True)
    subprocess.run(["git", "apply", str(tmp_path / "fix.diff")], cwd=by_diff, check=True, capture_output=True)
    assert cli("fix", "--apply", "check", cwd=by_apply).returncode in (0, 1)
    shutil.rmtree(by_diff / ".git")
    assert snapshot(by_diff) == snapshot(by_apply)


# ---------------------------------------------------------------------------------------------------------------
# --apply


def test_apply_rewrites_and_a_second_apply_changes_nothing(tmp_path):
    (tmp_path / "saved.py").write_text(SAVED)
    (tmp_path / "method.py").write_text(METHOD)
    (tmp_path / "leaf.py").write_text(LEAF)
    proc = cli("fix", "--apply", ".", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout == "Fixed 3 hazards in 3 files.\n" and proc.stderr == ""
    assert (tmp_path / "method.py").read_text() == METHOD.replace("usq = v ** 2", "usq = v.clone() ** 2")
    assert cli("check", ".", cwd=tmp_path).returncode == 0
    after = snapshot(tmp_path)
    again = cli("fix", "--apply", ".", cwd=tmp_path)
    assert (again.returncode, again.stdout) == (0, "Fixed 0 hazards in 0 files.\n"), again.stderr
    assert snapshot(tmp_path) == after
    assert cli("fix", ".", cwd=tmp_path).stdout == ""


@pytest.mark.parametrize("flags", [(), ("--unsafe-fixes",)], ids=["safe", "unsafe"])
def test_apply_on_the_fixtures_is_idempotent(tmp_path, flags):
    shutil.copytree(CHECK_DIR, tmp_path / "check", ignore=shutil.ignore_patterns("*.json"))
    first = cli("fix", "--apply", *flags, "check", cwd=tmp_path)
    assert first.returncode == 1, first.stderr  # some hazards have no fix
    assert first.stdout.startswith("Fixed ") and " (run `fixinplace check`)" in first.stdout
    after = snapshot(tmp_path)
    second = cli("fix", "--apply", *flags, "check", cwd=tmp_path)
    assert second.stdout.startswith("Fixed 0 hazards in 0 files;"), second.stdout
    assert snapshot(tmp_path) == after
    for path in (tmp_path / "check").glob("*.py"):  # fixed code always parses
        compile(path.read_bytes(), str(path), "exec", dont_inherit=True)


def test_safe_programs_come_out_byte_identical(tmp_path):
    folder = tmp_path / "safe"
    folder.mkdir()
    for p in CHECK_DIR.glob("*_safe.py"):
        shutil.copyfile(p, folder / p.name)
    for rule in RULES:
        for i, program in enumerate(rule.clean):
            (folder / f"{rule.code}_clean{i}.py").write_text(program)
    before = snapshot(folder)
    for flags in ((), ("--unsafe-fixes",)):
        diff = cli("fix", *flags, "safe", cwd=tmp_path)
        assert (diff.returncode, diff.stdout) == (0, ""), diff.stderr
        applied = cli("fix", "--apply", *flags, "safe", cwd=tmp_path)
        assert (applied.returncode, applied.stdout) == (0, "Fixed 0 hazards in 0 files.\n"), applied.stderr
        assert snapshot(folder) == before


def test_remaining_hazards_exit_1(tmp_path):
    """An optimizer step between forward and backward (FIP103) has only an unsafe fix (the step moves after the
    second backward): without --unsafe-fixes it remains, and the summary shows that fix."""
    (tmp_path / "gan.py").write_text(RULE["FIP103"].flagged[0])
    (tmp_path / "leaf.py").write_text(LEAF)
    proc = cli("fix", "--apply", ".", cwd=tmp_path)
    assert proc.returncode == 1, proc.stderr
    first, second, third, last = proc.stdout.splitlines()
    assert last == "Exit status 1: some hazards have no fix that `fix` applies; see `fixinplace check`."
    assert first == "Fixed 1 hazard in 1 file; 1 remains (run `fixinplace check`)."
    assert second == "1 remaining hazard has only an unsafe fix; review and apply with `--unsafe-fixes`:"
    assert third.startswith("  gan.py:") and "FIP103 Move `opt_d.step()` after the backward" in third
    check = cli("check", "--format", "json", ".", cwd=tmp_path)
    assert [d["code"] for d in json.loads(check.stdout)["diagnostics"]] == ["FIP103"]


def test_select_limits_what_is_fixed(tmp_path):
    (tmp_path / "saved.py").write_text(SAVED)
    (tmp_path / "leaf.py").write_text(LEAF)
    proc = cli("fix", "--select", "FIP102", ".", cwd=tmp_path)
    assert [p.path for p in unidiff.PatchSet(proc.stdout)] == ["leaf.py"]
    proc = cli("fix", "--ignore", "FIP1", ".", cwd=tmp_path)
    assert (proc.returncode, proc.stdout) == (0, "")


# ---------------------------------------------------------------------------------------------------------------
# Safe and unsafe fixes


def test_unsafe_fixes_only_with_the_flag_or_the_config(tmp_path):
    f = tmp_path / "features.py"
    shutil.copyfile(ARGUMENT, f)
    original = f.read_bytes()

    diff = cli("fix", "features.py", cwd=tmp_path)
    assert (diff.returncode, diff.stdout) == (1, "")  # nothing to apply, but a hazard remains
    assert "have only an unsafe fix" in diff.stderr or "has only an unsafe fix" in diff.stderr

    applied = cli("fix", "--apply", "features.py", cwd=tmp_path)
    assert applied.returncode == 1 and f.read_bytes() == original
    lines = applied.stdout.splitlines()
    assert lines[0] == "Fixed 0 hazards in 0 files; 1 remains (run `fixinplace check`)."
    assert lines[1] == "1 remaining hazard has only an unsafe fix; review and apply with `--unsafe-fixes`:"
    assert lines[2].startswith("  features.py:14:9: FIP102 ") and "unsafe" in lines[2]

    unsafe_diff = cli("fix", "--unsafe-fixes", "features.py", cwd=tmp_path)
    assert unsafe_diff.returncode == 1 and "+        x = x.add(1)  # hazard\n" in unsafe_diff.stdout
    assert f.read_bytes() == original

    (tmp_path / "pyproject.toml").write_text("[tool.fixinplace]\nunsafe-fixes = true\n")
    by_config = cli("fix", "features.py", cwd=tmp_path)
    assert (by_config.returncode, by_config.stdout) == (1, unsafe_diff.stdout)
    overridden = cli("fix", "--no-unsafe-fixes", "features.py", cwd=tmp_path)
    assert (overridden.returncode, overridden.stdout) == (1, "")

    done = cli("fix", "--apply", "features.py", cwd=tmp_path)
    assert (done.returncode, done.stdout) == (0, "Fixed 1 hazard in 1 file.\n"), done.stderr
    assert cli("check", "features.py", cwd=tmp_path).returncode == 0


def test_check_json_offers_the_fix(tmp_path):
    (tmp_path / "saved.py").write_text(SAVED)
    shutil.copyfile(ARGUMENT, tmp_path / "features.py")
    proc = cli("check", "--format", "json", ".", cwd=tmp_path)
    assert proc.returncode == 1, proc.stderr
    fixes = {d["path"]: d["fix"] for d in json.loads(proc.stdout)["diagnostics"]}
    assert set(fixes) == {"saved.py", "features.py"}
    for fix in fixes.values():
        assert set(fix) == {"applicability", "description"} and fix["description"]
    assert fixes["saved.py"]["applicability"] == "safe"
    assert fixes["features.py"]["applicability"] == "unsafe"


def test_check_text_stays_free_of_the_fix_stage(tmp_path):
    """The text format marks fixable diagnostics (`[*]`): the fix stage (LibCST, unidiff) is loaded only for a file
    with an error or a warning, never for clean files."""
    (tmp_path / "clean.py").write_text(CLEAN)
    proc = cli("check", "clean.py", cwd=tmp_path, python_flags=("-X", "importtime"))
    assert proc.returncode == 0
    imported = {line.split("|")[-1].strip().split(".")[0] for line in proc.stderr.splitlines() if "|" in line}
    assert "libcst" not in imported and "unidiff" not in imported


# ---------------------------------------------------------------------------------------------------------------
# What is preserved


def test_crlf_file_stays_crlf(tmp_path):
    expected = fixed_with_lf(tmp_path, LEAF)  # the fix adds a line (`with torch.no_grad():`)
    f = tmp_path / "leaf.py"
    f.write_bytes(LEAF.replace("\n", "\r\n").encode())
    proc = cli("fix", "--apply", "leaf.py", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert f.read_bytes() == expected.replace("\n", "\r\n").encode()


def test_added_lines_take_the_dominant_newline_of_a_mixed_file(tmp_path):
    program = CODEMODS["clone_before_write"].EXAMPLES[0][0]
    expected = fixed_with_lf(tmp_path, program)  # the fix inserts `p = p.clone()`
    assert expected.count("\n") == program.count("\n") + 1
    first, rest = program.split("\n", 1)
    f = tmp_path / "saved.py"
    f.write_bytes((first + "\n" + rest.replace("\n", "\r\n")).encode())  # LF first line, CRLF everywhere else
    assert cli("fix", "--apply", "saved.py", cwd=tmp_path).returncode == 0
    exp_first, exp_rest = expected.split("\n", 1)
    assert f.read_bytes() == (exp_first + "\n" + exp_rest.replace("\n", "\r\n")).encode()


def test_bom_and_latin1_cookie_files_keep_their_bytes(tmp_path):
    expected = fixed_with_lf(tmp_path, METHOD).encode()
    bom_head = b"\xef\xbb\xbf# -*- coding: utf-8 -*-\n# caf\xc3\xa9\n"
    latin_head = b"# -*- coding: latin-1 -*-\n# caf\xe9 \xab\xbb\n"
    (tmp_path / "bom.py").write_bytes(bom_head + METHOD.encode())
    (tmp_path / "latin.py").write_bytes(latin_head + METHOD.encode())
    proc = cli("fix", "--apply", "bom.py", "latin.py", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert (tmp_path / "bom.py").read_bytes() == bom_head + expected
    assert (tmp_path / "latin.py").read_bytes() == latin_head + expected


def test_latin1_diff_is_printed_in_the_files_encoding(tmp_path):
    head = b"# -*- coding: latin-1 -*-\nname = '\xe9t\xe9'\n"
    (tmp_path / "latin.py").write_bytes(head + LEAF.encode())
    proc = cli_bytes("fix", "latin.py", cwd=tmp_path)
    assert proc.returncode == 1
    assert b" name = '\xe9t\xe9'\n" in proc.stdout  # the file's own bytes, so that `git apply` reproduces them


def test_permissions_are_preserved(tmp_path):
    for name, mode in (("exe.py", 0o755), ("private.py", 0o600), ("group.py", 0o664)):
        f = tmp_path / name
        f.write_text(LEAF)
        os.chmod(f, mode)
    proc = cli("fix", "--apply", ".", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    for name, mode in (("exe.py", 0o755), ("private.py", 0o600), ("group.py", 0o664)):
        f = tmp_path / name
        assert stat.S_IMODE(f.stat().st_mode) == mode
        assert "with torch.no_grad():" in f.read_text()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["exe.py", "group.py", "private.py"]  # no temp files


def test_symlink_is_rewritten_through_its_target(tmp_path):
    (tmp_path / "real").mkdir()
    target = tmp_path / "real" / "leaf.py"
    target.write_text(LEAF)
    link = tmp_path / "link.py"
    link.symlink_to(os.path.join("real", "leaf.py"))
    diff = cli("fix", "link.py", "real/leaf.py", cwd=tmp_path)
    assert [p.path for p in unidiff.PatchSet(diff.stdout)] == ["link.py"]  # the same file is fixed once
    proc = cli("fix", "--apply", "link.py", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert link.is_symlink() and os.readlink(link) == os.path.join("real", "leaf.py")
    assert "with torch.no_grad():" in target.read_text()
    assert sorted(p.name for p in (tmp_path / "real").iterdir()) == ["leaf.py"]


def test_hard_linked_file_keeps_its_inode_and_all_its_names_see_the_fix(tmp_path):
    f = tmp_path / "leaf.py"
    f.write_text(LEAF)
    os.chmod(f, 0o640)
    other = tmp_path / "other_name.txt"  # not a .py: fixed once, through leaf.py
    os.link(f, other)
    inode = f.stat().st_ino
    proc = cli("fix", "--apply", "leaf.py", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "with torch.no_grad():" in f.read_text()
    assert other.read_text() == f.read_text()
    assert f.stat().st_ino == other.stat().st_ino == inode and f.stat().st_nlink == 2
    assert stat.S_IMODE(f.stat().st_mode) == 0o640
    assert sorted(p.name for p in tmp_path.iterdir()) == ["leaf.py", "other_name.txt"]  # no temporary file


# ---------------------------------------------------------------------------------------------------------------
# Files that cannot be fixed


def test_read_only_file_is_refused_and_the_others_are_fixed(tmp_path):
    ro = tmp_path / "a_readonly.py"
    ro.write_text(LEAF)
    os.chmod(ro, 0o444)
    (tmp_path / "b_ok.py").write_text(LEAF)
    (tmp_path / "c_clean_readonly.py").write_text(CLEAN)  # nothing to fix: not an error
    os.chmod(tmp_path / "c_clean_readonly.py", 0o444)
    proc = cli("fix", "--apply", ".", cwd=tmp_path)
    assert proc.returncode == 2
    assert proc.stderr.splitlines() == [
        "a_readonly.py: error: read-only file (no write permission): not rewritten; make it writable to fix it"
    ]
    assert ro.read_text() == LEAF and stat.S_IMODE(ro.stat().st_mode) == 0o444
    assert "with torch.no_grad():" in (tmp_path / "b_ok.py").read_text()
    assert proc.stdout.splitlines() == [
        "Fixed 1 hazard in 1 file; 1 remains (run `fixinplace check`).",
        "1 path could not be fixed (see the errors above).",
    ]
    # Without --apply nothing is written, so the read-only file's diff is printed like any other.
    assert [p.path for p in unidiff.PatchSet(cli("fix", ".", cwd=tmp_path).stdout)] == ["a_readonly.py"]


def test_syntax_error_is_reported_like_check_and_the_others_are_fixed(tmp_path):
    (tmp_path / "a_bad.py").write_text("import torch\nx = torch.ones(3)\nx.add_(1\n")
    (tmp_path / "b_ok.py").write_text(LEAF)
    (tmp_path / "c_undecodable.py").write_bytes(b"x = '\xff'\nx.add_(1)\n")
    check = json.loads(cli("check", "--format", "json", ".", cwd=tmp_path).stdout)
    expected = [f"{e['path']}: error: {e['message']}" for e in check["errors"]]
    assert len(expected) == 2 and expected[0].startswith("a_bad.py: error: syntax error at line 3")
    for flags in ((), ("--apply",)):
        proc = cli("fix", *flags, ".", cwd=tmp_path)
        assert proc.returncode == 2
        assert proc.stderr.splitlines()[:2] == expected
    assert "with torch.no_grad():" in (tmp_path / "b_ok.py").read_text()
    assert (tmp_path / "a_bad.py").read_text() == "import torch\nx = torch.ones(3)\nx.add_(1\n"


def test_usage_errors_exit_2(tmp_path):
    (tmp_path / "leaf.py").write_text(LEAF)
    for args in (("fix", "--bogus"), ("fix", "--select", "NOPE", "leaf.py"), ("fix", "--severity", "loud", "leaf.py")):
        proc = cli(*args, cwd=tmp_path)
        assert proc.returncode == 2 and proc.stdout == "", args
        assert len(proc.stderr.splitlines()) == 1 and proc.stderr.startswith("fixinplace: error: ")
    (tmp_path / "pyproject.toml").write_text("[tool.fixinplace]\nunsafe-fixes = 'yes'\n")
    proc = cli("fix", "leaf.py", cwd=tmp_path)
    assert proc.returncode == 2 and "unsafe-fixes must be true or false" in proc.stderr
    assert (tmp_path / "leaf.py").read_text() == LEAF


def test_missing_path_exits_2_after_fixing_the_others(tmp_path):
    (tmp_path / "leaf.py").write_text(LEAF)
    proc = cli("fix", "--apply", "missing.py", "leaf.py", cwd=tmp_path)
    assert proc.returncode == 2
    assert proc.stderr == "missing.py: error: no such file or directory\n"
    assert "with torch.no_grad():" in (tmp_path / "leaf.py").read_text()


# ---------------------------------------------------------------------------------------------------------------
# The counts: what `check` calls fixable and what `fix` says remains are what a real `check` finds afterwards

#: One write fixed out of place (`u = u.add(1)`) also clears the next one, through `u.detach()` (whose own fix is
#: unsafe): 2 errors, both cleared by `fix --apply`.
THROUGH_DETACH = """\
import torch


def main():
    x = torch.randn(4, 3, requires_grad=True)
    u = x.exp()
    loss = u.sum()
    u.add_(1)
    u.detach().mul_(2)
    loss.backward()
"""
#: Four writes of one saved tensor, all cleared by one clone.
MANY_WRITES = """\
import torch


def main():
    x = torch.randn(4, 3, requires_grad=True)
    u = x.exp()
    loss = u.sum()
    u[0] = 0.0
    u[1] = 0.0
    u[2] = 0.0
    u[3] = 0.0
    loss.backward()
"""
#: A helper that writes its argument, in another file: each call that passes it a saved tensor is a diagnostic of
#: the calling file, cleared by the (unsafe) fix of the helper. The caller's name sorts first, so `fix` meets it
#: before the helper.
HELPER = "import torch\n\n\ndef gate(t):\n    h = t.sigmoid()\n    h.mul_(2)\n    return h\n"
CALLER = """\
import torch
from helpers import gate


def main():
    x = torch.randn(4, 3, requires_grad=True)
    loss = gate(x).sum() + gate(x * 2).sum() + gate(x + 1).sum()
    loss.backward()
"""

_FOUND = re.compile(r"^Found (\d+) errors?, (\d+) warnings? in \d+ files?\.$", re.M)
_FIXABLE = re.compile(r"^(?:\[\*\] )?(\d+) fixable with `fixinplace fix --apply`(?: \((\d+) more with `--unsafe-fixes`\))?\.$",
                      re.M)
_SUMMARY = re.compile(r"^(?:Fixed|Would fix) (\d+) hazards? in \d+ files?(?:; (\d+) remains?)?", re.M)


def _check_counts(folder: Path, *flags: str) -> tuple[int, int, int, list[str]]:
    """What `check` reports: the errors and warnings found, the fixable count, the `more with --unsafe-fixes`
    count, and the positions marked `[*]`."""
    proc = cli("check", "--no-cache", *flags, ".", cwd=folder)
    assert proc.returncode in (0, 1), proc.stderr
    found = _FOUND.search(proc.stdout)
    if found is None:
        assert proc.stdout == "All checks passed!\n", proc.stdout
        return 0, 0, 0, []
    fixable = _FIXABLE.search(proc.stdout)
    marked = [line.split(": FIP")[0] for line in proc.stdout.splitlines() if re.match(r"^\S+: FIP\d+ \[\w+\] \[\*\]", line)]
    return (int(found[1]) + int(found[2]), int(fixable[1]) if fixable else 0,
            int(fixable[2] or 0) if fixable else 0, marked)


def _summary_counts(text: str) -> tuple[int, int]:
    m = _SUMMARY.search(text)
    assert m is not None, text
    return int(m[1]), int(m[2] or 0)


@pytest.mark.parametrize("files, flags", [
    ({"detach.py": THROUGH_DETACH}, ()),
    ({"many.py": MANY_WRITES}, ()),
    ({"detach.py": THROUGH_DETACH, "many.py": MANY_WRITES}, ("--unsafe-fixes",)),
    ({"a_caller.py": CALLER, "helpers.py": HELPER}, ("--unsafe-fixes",)),
], ids=["one-fix-clears-two", "one-clone-clears-four", "unsafe", "another-file"])
def test_counts_are_what_a_real_check_finds_after_fix_apply(tmp_path, files, flags):
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    found, fixable, more, marked = _check_counts(tmp_path, *flags)
    dry = cli("fix", "--summary", *flags, ".", cwd=tmp_path)
    applied = cli("fix", "--apply", *flags, ".", cwd=tmp_path)
    assert applied.returncode in (0, 1), applied.stderr
    left, _, _, _ = _check_counts(tmp_path, *flags)
    cleared = found - left
    assert cleared > 0
    # `fix` (with or without --apply) says how many hazards it clears and how many a real check still finds.
    assert _summary_counts(dry.stdout) == (cleared, left), dry.stdout
    assert _summary_counts(applied.stdout) == (cleared, left), applied.stdout
    if "a_caller.py" in files:
        return  # `check` counts what each file's own fixes clear (see docs/cli.md)
    assert fixable == cleared and more == 0
    assert len(marked) == fixable  # every [*] is a diagnostic `fix --apply` clears, and each one it clears is marked


def test_fixable_and_more_with_unsafe_fixes_are_what_each_fix_apply_clears(tmp_path):
    """Without --unsafe-fixes, `N fixable (M more with --unsafe-fixes)`: N is what `fix --apply` clears, M what
    `fix --apply --unsafe-fixes` clears on top."""
    (tmp_path / "detach.py").write_text(THROUGH_DETACH)
    shutil.copyfile(ARGUMENT, tmp_path / "features.py")
    found, fixable, more, _ = _check_counts(tmp_path)
    for flags, expected in (((), fixable), (("--unsafe-fixes",), fixable + more)):
        folder = tmp_path / ("unsafe" if flags else "safe")
        folder.mkdir()
        for name in ("detach.py", "features.py"):
            shutil.copyfile(tmp_path / name, folder / name)
        cli("fix", "--apply", *flags, ".", cwd=folder)
        assert found - _check_counts(folder)[0] == expected, flags
