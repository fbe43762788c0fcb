"""The file-level layer of `fix` (fixinplace/patch.py) on real files, with hand-written rewrites.

These tests do not depend on the codemods: each one gives `make_patch` the fixed text directly, so what is tested
is the reading, newline handling, encoding, diff building/validation and atomic writing. The CLI tests in
test_fix_cli.py run the same properties end to end through `fixinplace fix`.
"""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
from pathlib import Path

import pytest
import unidiff

from fixinplace.fix.files import (
    PatchError,
    display_path,
    dominant_newline,
    make_patch,
    normalize_newlines,
    read_file,
    split_lines,
    unified_diff,
    validate_diff,
    write_patch,
)

OLD = "import torch\nw = torch.zeros(3, requires_grad=True)\nw.add_(1)  # keep me\n"
HAZARD = "import torch\n\n\ndef f(x):\n    y = x.exp()\n    y.add_(1)\n    return y\n"  # a safe fix
NEW = "import torch\nw = torch.zeros(3, requires_grad=True)\nwith torch.no_grad():\n    w.add_(1)  # keep me\n"


def rewrite(text: str) -> str:
    """The FIP102 fix of `OLD`, applied to any line ending (what the no_grad codemod produces)."""
    return text.replace("w.add_(1)", "with torch.no_grad():\n    w.add_(1)")


# ---------------------------------------------------------------------------------------------------------------
# Lines and newlines


def test_split_lines_keeps_each_ending_and_only_python_line_breaks():
    assert split_lines("a\r\nb\nc\rd") == ["a\r\n", "b\n", "c\r", "d"]
    assert split_lines("x = '\x0c\u2028'\n") == ["x = '\x0c\u2028'\n"]  # not line breaks for Python
    assert split_lines("") == []
    assert "".join(split_lines("a\n\n\r\n")) == "a\n\n\r\n"


def test_dominant_newline():
    assert dominant_newline("a\r\nb\r\nc\n") == "\r\n"
    assert dominant_newline("a\nb\r\n") == "\n"  # a tie: the first one
    assert dominant_newline("no newline") == "\n"


def test_added_lines_get_the_dominant_newline_and_kept_lines_keep_theirs():
    old = "import torch\nw = torch.zeros(3, requires_grad=True)\r\nw.add_(1)\r\nprint(w)\r\nprint(1)\n"
    assert dominant_newline(old) == "\r\n"
    # what LibCST gives for this file: its default newline is the first line's, "\n"
    new = "import torch\nw = torch.zeros(3, requires_grad=True)\r\nwith torch.no_grad():\n    w.add_(1)\r\nprint(w)\r\nprint(1)\n"
    fixed = normalize_newlines(old, new, dominant_newline(old))
    assert fixed == (
        "import torch\nw = torch.zeros(3, requires_grad=True)\r\nwith torch.no_grad():\r\n    w.add_(1)\r\n"
        "print(w)\r\nprint(1)\n"
    )


def test_a_last_line_without_newline_stays_without():
    old = "w.add_(1)"
    assert normalize_newlines(old, "with torch.no_grad():\r\n    w.add_(1)", "\n") == (
        "with torch.no_grad():\n    w.add_(1)"
    )


# ---------------------------------------------------------------------------------------------------------------
# Diffs


def test_diff_format_and_validation(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pkg").mkdir()
    f = tmp_path / "pkg" / "train.py"
    f.write_text(OLD)
    patch = make_patch(read_file("pkg/train.py"), NEW)
    assert patch.diff == (
        "--- a/pkg/train.py\n"
        "+++ b/pkg/train.py\n"
        "@@ -1,3 +1,4 @@\n"
        " import torch\n"
        " w = torch.zeros(3, requires_grad=True)\n"
        "-w.add_(1)  # keep me\n"
        "+with torch.no_grad():\n"
        "+    w.add_(1)  # keep me\n"
    )
    (patched,) = unidiff.PatchSet(patch.diff)
    assert (patched.path, patched.added, patched.removed) == ("pkg/train.py", 2, 1)
    assert f.read_text() == OLD  # building a patch writes nothing


def test_diff_paths_are_relative_to_the_working_directory(tmp_path, monkeypatch):
    (tmp_path / "a" / "b").mkdir(parents=True)
    monkeypatch.chdir(tmp_path / "a")
    assert display_path(str(tmp_path / "a" / "b" / "x.py")) == "b/x.py"
    assert display_path("b/../b/x.py") == "b/x.py"
    assert display_path(str(tmp_path / "y.py")) == "../y.py"


def test_diff_of_a_file_without_final_newline():
    diff = unified_diff("x = 1\nw.add_(1)", "x = 1\nw = w.add(1)", "f.py")
    assert diff.endswith("-w.add_(1)\n\\ No newline at end of file\n+w = w.add(1)\n\\ No newline at end of file\n")
    validate_diff(diff, "x = 1\nw.add_(1)", "x = 1\nw = w.add(1)", "f.py")


def test_a_diff_that_does_not_give_the_new_text_is_rejected():
    diff = unified_diff(OLD, NEW, "f.py")
    with pytest.raises(PatchError, match="internal error"):
        validate_diff(diff, OLD, NEW.replace("keep me", "lost"), "f.py")
    with pytest.raises(PatchError, match="internal error"):
        validate_diff(diff.replace("+with", "+wiht"), OLD, NEW, "f.py")
    with pytest.raises(PatchError, match="internal error"):
        validate_diff(diff, OLD, NEW, "g.py")
    with pytest.raises(PatchError, match="internal error"):
        validate_diff(diff[: diff.index("-w.add_")], OLD, NEW, "f.py")  # a truncated hunk


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
@pytest.mark.parametrize(
    "data",
    [
        OLD.encode(),
        OLD.replace("\n", "\r\n").encode(),
        b"\xef\xbb\xbf" + OLD.encode(),
        b"# -*- coding: latin-1 -*-\nname = '\xe9t\xe9'\n" + OLD.encode(),
        OLD.rstrip("\n").encode(),
    ],
    ids=["lf", "crlf", "bom", "latin1", "no-final-newline"],
)
def test_printed_diff_applies_with_git_to_the_same_bytes(tmp_path, data):
    f = tmp_path / "f.py"
    f.write_bytes(data)
    source = read_file(str(f))
    patch = make_patch(source, rewrite(source.text), cwd=str(tmp_path))
    assert patch.changed
    (tmp_path / "fix.diff").write_bytes(patch.diff_bytes())
    subprocess.run(["git", "init", "-q", "."], cwd=tmp_path, check=True)
    subprocess.run(["git", "apply", "fix.diff"], cwd=tmp_path, check=True, capture_output=True)
    assert f.read_bytes() == patch.new_data


# ---------------------------------------------------------------------------------------------------------------
# Encodings and line endings of the written bytes


def test_crlf_file_stays_crlf(tmp_path):
    f = tmp_path / "f.py"
    f.write_bytes(OLD.replace("\n", "\r\n").encode())
    source = read_file(str(f))
    assert source.newline == "\r\n"
    patch = make_patch(source, rewrite(source.text))  # the rewrite adds a "\n" line break, as a codemod may
    write_patch(patch)
    assert f.read_bytes() == NEW.replace("\n", "\r\n").encode()


def test_utf8_bom_and_cookie_are_kept(tmp_path):
    f = tmp_path / "f.py"
    head = "# -*- coding: utf-8 -*-\n# café\n".encode()
    f.write_bytes(b"\xef\xbb\xbf" + head + OLD.encode())
    source = read_file(str(f))
    assert source.bom and not source.text.startswith("\ufeff")
    write_patch(make_patch(source, rewrite(source.text)))
    assert f.read_bytes() == b"\xef\xbb\xbf" + head + NEW.encode()


def test_latin1_cookie_file_keeps_its_encoding(tmp_path):
    f = tmp_path / "f.py"
    head = b"# -*- coding: latin-1 -*-\nname = '\xe9t\xe9'  # \xab latin-1 \xbb\n"
    f.write_bytes(head + OLD.encode())
    source = read_file(str(f))
    assert source.encoding == "iso-8859-1"
    write_patch(make_patch(source, rewrite(source.text)))
    assert f.read_bytes() == head + NEW.encode()


def test_a_character_the_encoding_cannot_hold_is_an_error(tmp_path):
    f = tmp_path / "f.py"
    f.write_bytes(b"# -*- coding: latin-1 -*-\n" + OLD.encode())
    source = read_file(str(f))
    with pytest.raises(PatchError, match="cannot encode"):
        make_patch(source, source.text.replace("keep me", "\u2603"))
    assert f.read_bytes() == b"# -*- coding: latin-1 -*-\n" + OLD.encode()


def test_unchanged_text_gives_an_empty_patch(tmp_path):
    f = tmp_path / "f.py"
    f.write_bytes(OLD.replace("\n", "\r\n").encode())
    source = read_file(str(f))
    patch = make_patch(source, source.text)
    assert not patch.changed and patch.diff == "" and patch.diff_bytes() == b""


# ---------------------------------------------------------------------------------------------------------------
# Writing


def test_permissions_are_preserved_and_no_temporary_file_is_left(tmp_path):
    f = tmp_path / "f.py"
    f.write_text(OLD)
    os.chmod(f, 0o751)
    write_patch(make_patch(read_file(str(f)), NEW))
    assert f.read_text() == NEW
    assert stat.S_IMODE(f.stat().st_mode) == 0o751
    assert sorted(p.name for p in tmp_path.iterdir()) == ["f.py"]


def test_read_only_file_is_refused_and_unchanged(tmp_path):
    f = tmp_path / "f.py"
    f.write_text(OLD)
    os.chmod(f, 0o444)
    patch = make_patch(read_file(str(f)), NEW)
    with pytest.raises(PatchError, match="read-only"):
        write_patch(patch)
    assert f.read_text() == OLD and stat.S_IMODE(f.stat().st_mode) == 0o444
    assert sorted(p.name for p in tmp_path.iterdir()) == ["f.py"]


def test_symlink_is_rewritten_through_its_target(tmp_path):
    target = tmp_path / "real" / "f.py"
    target.parent.mkdir()
    target.write_text(OLD)
    link = tmp_path / "link.py"
    link.symlink_to(os.path.join("real", "f.py"))
    source = read_file(str(link))
    assert source.path == str(link) and source.target == str(target.resolve())
    write_patch(make_patch(source, NEW))
    assert link.is_symlink() and os.readlink(link) == os.path.join("real", "f.py")
    assert target.read_text() == NEW
    assert sorted(p.name for p in target.parent.iterdir()) == ["f.py"]


def test_a_file_changed_since_it_was_read_is_not_overwritten(tmp_path):
    f = tmp_path / "f.py"
    f.write_text(OLD)
    patch = make_patch(read_file(str(f)), NEW)
    f.write_text(OLD + "# edited meanwhile\n")
    with pytest.raises(PatchError, match="changed while"):
        write_patch(patch)
    assert f.read_text() == OLD + "# edited meanwhile\n"


def test_a_failed_write_leaves_the_original_and_no_temporary_file(tmp_path):
    from clirun import cli

    folder = tmp_path / "ro"
    folder.mkdir()
    f = folder / "f.py"
    f.write_text(HAZARD)
    os.chmod(folder, 0o555)
    try:
        # As root, the child drops the capabilities that would let it write into a read-only folder.
        proc = cli("fix", "--apply", "ro/f.py", cwd=tmp_path, as_user=True)
    finally:
        os.chmod(folder, 0o755)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    errors = [line for line in proc.stderr.splitlines() if ": error: " in line]
    assert len(errors) == 1 and errors[0].startswith("ro/f.py: error: cannot write"), proc.stderr
    assert f.read_text() == HAZARD and sorted(p.name for p in folder.iterdir()) == ["f.py"]


def test_bytes_that_do_not_round_trip_are_refused(tmp_path):
    """A file whose bytes its codec does not reproduce is refused rather than silently re-encoded."""
    f = tmp_path / "f.py"
    # utf-7 decodes "+AGE-" to "a" but encodes "a" as "a": the bytes would change outside the fix
    f.write_bytes(b"# coding: utf-7\nx = '+AGE-'\n" + OLD.encode())
    source = read_file(str(f))
    with pytest.raises(PatchError, match="round-trip"):
        make_patch(source, rewrite(source.text))


def test_path_of_the_patch_is_as_given(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("f.py").write_text(OLD)
    patch = make_patch(read_file("./f.py"), NEW)
    assert patch.diff.startswith("--- a/f.py\n+++ b/f.py\n")


def test_lone_carriage_returns_are_refused_with_a_clear_message(tmp_path):
    f = tmp_path / "f.py"
    f.write_bytes(OLD.replace("\n", "\r").encode())
    source = read_file(str(f))
    with pytest.raises(PatchError, match="lone carriage return"):
        make_patch(source, rewrite(source.text))
