"""The file-level layer of `fixinplace fix`: read, rewrite, diff and replace files without damaging them.

    read_file(path, max_size) -> SourceFile      bytes, decoded exactly like `check` (PEP 263 cookie, UTF-8 BOM)
    make_patch(source, new_text) -> FilePatch     new text with the file's newlines, its new bytes (same codec,
                                                  same BOM), and a unified diff checked with `unidiff`
    write_patch(patch)                            safe replace of the file (through a symlink to its target; a
                                                  hard-linked file keeps its inode)

What is preserved: every byte outside the rewritten lines (the text is decoded and encoded back with the same
codec, which is verified to round-trip the original bytes), the BOM, the coding cookie, each line's own line
ending (lines that the codemods add or rewrite get the file's dominant ending, so a CRLF file stays CRLF), the
permission bits (and the owner, where allowed), and a symlink (its target is rewritten, the link stays a link).

A file is never left half-written: the new bytes go to a temporary file in the same folder, which is flushed and
fsynced. A file with one name is then replaced by it atomically (the temporary file gets the original permission
bits and is renamed over the original, `os.replace`). A hard-linked file (more than one name) is rewritten in
place from that copy and fsynced, so that all its names show the fixed text (same inode, mode and owner); if that
write fails, the original bytes are written back. On any failure the temporary file is removed and the original is
untouched. A read-only file (no write permission bit: checked on the mode bits, since root ignores them)
is refused with a one-line error and left as it is.

Problems with one file (unreadable, undecodable, unparsable, read-only, a diff that does not validate, a failure
of the fixer) become a one-line `FileError` for that file, worded like `check`'s; the other files are still fixed.
"""

from __future__ import annotations

import difflib
import os
import re
import stat
import tempfile
from dataclasses import dataclass, field
from typing import Callable

from fixinplace.diagnostics import Diagnostic, FileError, blocking, one_line, printable_path
from fixinplace.engine import SourceError, decode_source_bytes, read_source_bytes
from fixinplace.lines import LINE_ENDING, split_lines


class PatchError(Exception):
    """A file that cannot be rewritten; the message is one line (without the path)."""


# ---------------------------------------------------------------------------------------------------------------
# Reading


def dominant_newline(text: str) -> str:
    """The most frequent line ending of a text (the first one on a tie; `\\n` when there is none)."""
    counts: dict[str, int] = {}
    for m in LINE_ENDING.finditer(text):
        counts[m.group()] = counts.get(m.group(), 0) + 1
    if not counts:
        return "\n"
    return max(counts, key=lambda nl: counts[nl])  # dicts keep first-seen order, max keeps the first on ties


@dataclass(frozen=True)
class SourceFile:
    """One file as read for fixing."""

    path: str  # as found from the command line (what diagnostics and messages show)
    target: str  # the file actually read and written: symlinks resolved
    data: bytes  # the original bytes
    text: str  # the decoded text (no BOM; line endings as in the file)
    encoding: str  # the codec from `engine.decode_source_bytes` ("utf-8-sig" when there is a BOM)

    @property
    def bom(self) -> bool:
        """Whether the file starts with a UTF-8 BOM."""
        return self.encoding == "utf-8-sig"

    @property
    def newline(self) -> str:
        """The file's dominant line ending."""
        return dominant_newline(self.text)


def read_file(path: str, max_size: int | None = None) -> SourceFile:
    """Read and decode one file exactly like `check` does; problems raise `engine.SourceError`."""
    data = read_source_bytes(path, max_size)
    text, encoding = decode_source_bytes(data)
    return SourceFile(path=path, target=os.path.realpath(path), data=data, text=text, encoding=encoding)


# ---------------------------------------------------------------------------------------------------------------
# Rewriting text into bytes


def normalize_newlines(old: str, new: str, newline: str) -> str:
    """`new` with the line endings of its added or rewritten lines set to `newline`.

    Lines that `new` shares with `old` (unchanged, or moved within a rewritten block: LibCST keeps each line's own
    ending) keep their ending; a last line without an ending keeps having none.
    """
    endings = {m.group() for m in LINE_ENDING.finditer(old)}
    if endings <= {newline}:  # one kind of ending: every line of `new` that has one gets it (no diff to take)
        return LINE_ENDING.sub(newline, new)
    old_lines, new_lines = split_lines(old), split_lines(new)
    matcher = difflib.SequenceMatcher(None, old_lines, new_lines, autojunk=False)
    out: list[str] = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            out.extend(new_lines[j1:j2])
            continue
        kept = set(old_lines[i1:i2])
        for line in new_lines[j1:j2]:
            if line in kept:
                out.append(line)
                continue
            body = line.rstrip("\r\n")
            out.append(body + newline if len(body) < len(line) else line)
    return "".join(out)


def encode_text(source: SourceFile, text: str) -> bytes:
    """The bytes of `text` in the file's codec (and BOM); `PatchError` if that cannot reproduce the file exactly."""
    try:
        if source.text.encode(source.encoding) != source.data:
            raise PatchError(
                f"cannot rewrite: the file's bytes do not round-trip through its encoding ({source.encoding}), "
                "so bytes outside the fix could change"
            )
        return text.encode(source.encoding)
    except UnicodeEncodeError as e:
        raise PatchError(
            f"cannot rewrite: the fixed text has a character ({text[e.start]!r}) that {source.encoding} cannot encode"
        ) from None
    except LookupError as e:  # pragma: no cover - the codec decoded the file, so it exists
        raise PatchError(f"cannot rewrite: {one_line(e)}") from None


# ---------------------------------------------------------------------------------------------------------------
# Diffs


def display_path(path: str, cwd: str | None = None) -> str:
    """A path for diff headers: relative to the working directory when possible, with `/` separators."""
    cwd = cwd or os.getcwd()
    try:
        shown = os.path.relpath(os.path.abspath(path), cwd)
    except ValueError:  # another drive (Windows)
        shown = os.path.abspath(path)
    return shown.replace(os.sep, "/")


def diff_name(side: str, path: str) -> str:
    """A diff header's file name (`a/path`), quoted and escaped as git writes it when the path has a character
    that cannot be printed (a line break would end the header)."""
    name = f"{side}/{path}"
    return name if name.isprintable() else '"' + printable_path(name).replace('"', '\\"') + '"'


_NO_NEWLINE = "\\ No newline at end of file\n"


def unified_diff(old: str, new: str, shown_path: str) -> str:
    """The unified diff (`--- a/<path>`, `+++ b/<path>`, three lines of context) from `old` to `new`.

    Each line keeps its own ending (a CRLF file gives CRLF diff lines, as `git diff` shows them); a last line
    without an ending is followed by git's `\\ No newline at end of file` marker. Empty when the texts are equal.
    """
    out: list[str] = []
    for line in difflib.unified_diff(split_lines(old), split_lines(new), diff_name("a", shown_path),
                                     diff_name("b", shown_path)):
        if line.endswith(("\n", "\r")):
            out.append(line)
        else:
            out.append(line + "\n" + _NO_NEWLINE)
    return "".join(out)


def validate_diff(diff: str, old: str, new: str, shown_path: str) -> None:
    """Parse `diff` with `unidiff` and check that it names the file and turns `old` into exactly `new`.

    Raises `PatchError` otherwise (a bug, reported for the file instead of printing a broken patch).
    """
    import unidiff  # deferred: unidiff, only when a patch is made (check's [*] marks load this module too)
    from unidiff.constants import (  # deferred: unidiff, as above
        LINE_TYPE_ADDED, LINE_TYPE_CONTEXT, LINE_TYPE_NO_NEWLINE, LINE_TYPE_REMOVED)

    try:
        patch_set = unidiff.PatchSet(diff)
    except unidiff.UnidiffParseError as e:
        raise PatchError(f"internal error: the diff does not parse: {one_line(e)}") from None
    if len(patch_set) != 1:
        raise PatchError(f"internal error: the diff has {len(patch_set)} files instead of 1")
    (patched,) = patch_set
    if patched.source_file != diff_name("a", shown_path) or patched.target_file != diff_name("b", shown_path):
        raise PatchError(f"internal error: the diff names {patched.source_file!r} instead of "
                         f"{diff_name('a', shown_path)!r}")
    old_lines = split_lines(old)
    rebuilt: list[str] = []
    position = 0  # lines of `old` consumed
    for hunk in patched:
        start = max(hunk.source_start - 1, 0) if hunk.source_length else hunk.source_start
        if start < position or start > len(old_lines):
            raise PatchError("internal error: the diff's hunks are out of order")
        rebuilt.extend(old_lines[position:start])
        position = start
        lines = list(hunk)
        for k, line in enumerate(lines):
            if line.line_type == LINE_TYPE_NO_NEWLINE:
                continue
            value = line.value
            if k + 1 < len(lines) and lines[k + 1].line_type == LINE_TYPE_NO_NEWLINE:
                value = value[:-1] if value.endswith("\n") else value
            if line.line_type in (LINE_TYPE_CONTEXT, LINE_TYPE_REMOVED):
                if position >= len(old_lines) or old_lines[position] != value:
                    raise PatchError(f"internal error: the diff does not match the file at line {position + 1}")
                position += 1
            if line.line_type in (LINE_TYPE_CONTEXT, LINE_TYPE_ADDED):
                rebuilt.append(value)
    rebuilt.extend(old_lines[position:])
    if "".join(rebuilt) != new:
        raise PatchError("internal error: applying the diff does not give the fixed text")


# ---------------------------------------------------------------------------------------------------------------
# Patches and writing


@dataclass(frozen=True)
class FilePatch:
    """The rewrite of one file: new text and bytes, and its validated unified diff (empty when unchanged)."""

    source: SourceFile
    new_text: str
    new_data: bytes
    diff: str
    shown_path: str

    @property
    def changed(self) -> bool:
        """Whether the file's bytes would change."""
        return self.new_data != self.source.data

    def diff_bytes(self) -> bytes:
        """The diff as bytes to print: headers in UTF-8, the lines in the file's own encoding (with its BOM on the
        first line), so that `git apply` / `patch -p1` reproduce the file's bytes exactly."""
        if not self.diff:
            return b""
        codec = "utf-8" if self.source.bom else self.source.encoding
        minus, plus, body = self.diff.split("\n", 2)
        return f"{minus}\n{plus}\n".encode("utf-8", "surrogateescape") + body.encode(codec)


def make_patch(source: SourceFile, new_text: str, cwd: str | None = None) -> FilePatch:
    """The patch turning `source` into `new_text` (added lines get the file's newline); `PatchError` on failure."""
    new_text = normalize_newlines(source.text, new_text, source.newline) if new_text != source.text else new_text
    new_data = encode_text(source, new_text)
    shown = display_path(source.path, cwd)
    if new_data == source.data:
        return FilePatch(source, source.text, source.data, "", shown)
    if _LONE_CR.search(source.text):
        raise PatchError(
            "cannot fix: the file has lines ending in a lone carriage return (old Mac line endings), which a unified "
            "diff cannot show; convert them to LF or CRLF first"
        )
    # The diff is taken over the text as it is in the file, BOM included, so it applies to the file's bytes.
    bom = "\ufeff" if source.bom else ""
    old_raw, new_raw = bom + source.text, bom + new_text
    diff = unified_diff(old_raw, new_raw, shown)
    validate_diff(diff, old_raw, new_raw, shown)
    return FilePatch(source, new_text, new_data, diff, shown)


_LONE_CR = re.compile(r"\r(?!\n)")
_WRITE_BITS = stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH


def check_writable(source: SourceFile) -> os.stat_result:
    """The target's stat; `PatchError` when it is read-only (no write bit) or not writable by this user."""
    try:
        st = os.stat(source.target)
    except OSError as e:
        raise PatchError(f"cannot write: {e.strerror or e}") from None
    if not st.st_mode & _WRITE_BITS:
        raise PatchError("read-only file (no write permission): not rewritten; make it writable to fix it")
    if not os.access(source.target, os.W_OK):
        raise PatchError("permission denied: this user cannot write the file; not rewritten")
    return st


def write_patch(patch: FilePatch) -> None:
    """Replace the file's bytes with the patch's; `PatchError` (file untouched) on failure.

    The new bytes always go first to a temporary file in the file's folder, flushed and fsynced. A file with one
    name then takes its place by a rename (atomic). A hard-linked file (more than one name) is rewritten in place
    instead, from that temporary copy, so that every name keeps showing the same file (its inode, mode, owner and
    links stay); if that fails, the original bytes are written back, and the temporary copy is removed only once
    the file holds complete bytes (the new ones, or the old ones)."""
    if not patch.changed:
        return
    source = patch.source
    st = check_writable(source)
    try:
        with open(source.target, "rb") as f:
            current = f.read()
    except OSError as e:
        raise PatchError(f"cannot read: {e.strerror or e}") from None
    if current != source.data:
        raise PatchError("the file changed while it was being fixed: not rewritten")
    folder, name = os.path.split(source.target)
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{name}.", suffix=".fixinplace.tmp", dir=folder or ".")
    except OSError as e:
        raise PatchError(f"cannot write: cannot create a temporary file in its folder: {e.strerror or e}") from None
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(patch.new_data)
            f.flush()
            os.fsync(f.fileno())
        if st.st_nlink > 1:
            _copy_in_place(tmp, source.target, patch.new_data, source.data)
            _remove(tmp)
            return
        os.chmod(tmp, stat.S_IMODE(st.st_mode))
        if hasattr(os, "chown"):
            try:
                os.chown(tmp, st.st_uid, st.st_gid)
            except OSError:  # only root (or the owner, for its groups) may; the mode bits are what matters
                pass
        os.replace(tmp, source.target)
    except PatchError:  # from `_copy_in_place`: it says where the text is
        raise
    except OSError as e:
        _remove(tmp)
        raise PatchError(f"cannot write: {e.strerror or e}") from None
    except BaseException:  # KeyboardInterrupt: the original is untouched, leave no temporary file behind
        _remove(tmp)
        raise
    _fsync_folder(folder or ".")


def _copy_in_place(tmp: str, target: str, new: bytes, original: bytes) -> None:
    """Write `new` (the bytes already safe in `tmp`) over `target`'s, in the same inode, and fsync; on any failure (an interruption
    too) put `original` back the same way and re-raise. Should that fail as well, `tmp` (the complete new bytes)
    takes the file's name by a rename: the file is never left half-written, though its other names then keep the
    old text."""
    try:
        _overwrite(target, new)
    except BaseException:
        try:
            _overwrite(target, original)
        except BaseException:
            try:
                os.replace(tmp, target)
            except OSError:
                raise PatchError(f"cannot write in place, nor put the old text back: the fixed text is in {tmp}") \
                    from None
            raise PatchError("cannot write in place: the fixed text was put in a new file under the same name, so the "
                             "file's other names (hard links) keep the old text") from None
        raise


def _overwrite(target: str, data: bytes) -> None:
    """Write `data` over the file's bytes in place (same inode), truncate, fsync."""
    fd = os.open(target, os.O_WRONLY)
    try:
        view = memoryview(data)
        while view:
            written = os.write(fd, view)
            view = view[written:]
        os.ftruncate(fd, len(data))
        os.fsync(fd)
    finally:
        os.close(fd)


def _remove(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


def _fsync_folder(folder: str) -> None:
    """Make the rename durable (best effort: not every platform can open a folder)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


# ---------------------------------------------------------------------------------------------------------------
# Fixing files


@dataclass
class FileOutcome:
    """What fixing one file did."""

    path: str
    patch: FilePatch | None = None  # set when the file changes (or would)
    applied: list[Diagnostic] = field(default_factory=list)  # hazards whose fix is in the new text
    remaining: list[Diagnostic] = field(default_factory=list)  # error/warning hazards left afterwards
    error: FileError | None = None
    written: bool = False
    found: int = 0  # the error and warning hazards of the file before the fix (what `check` reports)
    # Whether `remaining` is what the file's final text has (with the other files as they were): false once its
    # patch is dropped or cut down (`settle` then analyses the file again).
    exact: bool = True
    # A call's hazard fixed in other files of the run (`fixinplace.fix.remote`): the applied diagnostic (by `id`)
    # and the real paths of the files its fix rewrites.
    elsewhere: dict = field(default_factory=dict)

    def undo(self, error: FileError) -> None:
        """Leave the file as it was, for `error`: no patch, and the hazards its fixes would have removed remain
        (one fix may remove several: `settle` counts them again)."""
        self.error = error
        self.patch = None
        self.remaining = blocking(self.applied) + self.remaining
        self.applied = []
        self.exact = False


def write_if_changed(outcome: FileOutcome, patch: FilePatch, apply: bool) -> None:
    """Keep a patch that changes the file in `outcome`, and write it when `apply`."""
    if patch.changed:
        outcome.patch = patch
        if apply:
            write_patch(patch)
            outcome.written = True


def guarded_outcome(path: str, work: Callable[[FileOutcome], None]) -> FileOutcome:
    """The outcome `work` fills in for one file; when it raises, the outcome's one-line `error` says why and the
    file is left as it was (a bug in the analysis or a codemod must not stop the other files)."""
    outcome = FileOutcome(path)
    try:
        work(outcome)
    except (SourceError, PatchError) as e:
        outcome.undo(FileError(path, one_line(e)))
    except Exception as e:
        if os.environ.get("FIXINPLACE_DEBUG"):
            raise
        outcome.undo(FileError(path, one_line(f"internal error: {type(e).__name__}: {e}")))
    return outcome


__all__ = [
    "FileOutcome",
    "FilePatch",
    "PatchError",
    "SourceFile",
    "check_writable",
    "display_path",
    "dominant_newline",
    "encode_text",
    "guarded_outcome",
    "make_patch",
    "normalize_newlines",
    "read_file",
    "unified_diff",
    "validate_diff",
    "write_if_changed",
    "write_patch",
]
