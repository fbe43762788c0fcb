"""The file-level layer of `fixinplace fix`: read, rewrite, diff and replace files without damaging them.

    read_file(path, max_size) -> SourceFile      bytes, decoded exactly like `check` (PEP 263 cookie, UTF-8 BOM)
    make_patch(source, new_text) -> FilePatch     new text with the file's newlines, its new bytes (same codec,
                                                  same BOM), and a unified diff checked with `unidiff`
    write_patch(patch)                            safe replace of the file (through a symlink to its target; a
                                                  hard-linked file keeps its inode)
    run_fix(paths, settings, apply=)             discovery + `fixinplace.fix.fix_text` on every file (unsafe fixes
                                                  too with `settings.unsafe_fixes`)

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
from typing import Callable, Sequence

from fixinplace.diagnostics import Diagnostic, FileError, blocking, one_line, printable_path
from fixinplace.engine import SourceError, decode_source_bytes, read_source_bytes, shared_analyses
from fixinplace.lines import LINE_ENDING, split_lines
from fixinplace.reading import is_notebook
from fixinplace.settings import Settings


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
    import unidiff
    from unidiff.constants import LINE_TYPE_ADDED, LINE_TYPE_CONTEXT, LINE_TYPE_NO_NEWLINE, LINE_TYPE_REMOVED

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

    def undo(self, error: FileError) -> None:
        """Leave the file as it was, for `error`: no patch, and the hazards its fixes would have removed remain
        (one fix may remove several: `settle` counts them again)."""
        self.error = error
        self.patch = None
        self.remaining = blocking(self.applied) + self.remaining
        self.applied = []
        self.exact = False


@dataclass
class FixReport:
    """Everything one `fix` run did, in file order."""

    outcomes: list[FileOutcome] = field(default_factory=list)
    errors: list[FileError] = field(default_factory=list)  # paths and files that could not be fixed
    apply: bool = False
    unsafe: bool = False

    @property
    def patches(self) -> list[FilePatch]:
        return [o.patch for o in self.outcomes if o.patch is not None and o.patch.changed]

    @property
    def diff(self) -> str:
        return "".join(p.diff for p in self.patches)

    @property
    def applied(self) -> list[Diagnostic]:
        return [d for o in self.outcomes for d in o.applied]

    @property
    def remaining(self) -> list[Diagnostic]:
        return [d for o in self.outcomes for d in o.remaining]

    @property
    def cleared(self) -> int:
        """How many error and warning hazards the fixes clear (or would): those found before less those that remain,
        in every file (a fix in one file can clear the diagnostics of the files that import it)."""
        return max(sum(o.found for o in self.outcomes) - len(self.remaining), 0)

    @property
    def fixed_files(self) -> list[str]:
        """Files rewritten (with `apply`) or that would be."""
        return [o.path for o in self.outcomes if o.patch is not None and o.patch.changed and (o.written or not self.apply)]

    @property
    def unsafe_only(self) -> list[Diagnostic]:
        """Remaining hazards that only an unsafe fix would remove (none when unsafe fixes are on)."""
        if self.unsafe:
            return []
        return [d for d in self.remaining if d.fix is not None and d.fix.applicability == "unsafe"]

    @property
    def exit_code(self) -> int:
        """2 when a path or file could not be fixed; otherwise 1 when an error or warning hazard remains afterwards
        or, without `apply`, when the diff is not empty; else 0."""
        if self.errors:
            return 2
        return 1 if self.remaining or (not self.apply and self.patches) else 0


def fix_file(path: str, settings: Settings, *, apply: bool = False, cwd: str | None = None) -> FileOutcome:
    """Fix one file (without `apply`: only compute the patch). Problems become the outcome's one-line `error`."""
    with shared_analyses():  # the fixes, what remains and what was found analyse the same texts
        return _fix_file(path, settings, apply, cwd)


def _fix_file(path: str, settings: Settings, apply: bool, cwd: str | None) -> FileOutcome:
    from fixinplace.fix.checked import fix_text, offer

    if is_notebook(path):
        from fixinplace.fix.notebooks import fix_notebook

        return _count_found(fix_notebook(path, settings, apply=apply, cwd=cwd), settings)

    def work(outcome: FileOutcome) -> None:
        source = read_file(path, settings.max_file_size)
        result = fix_text(source.text, path, settings)
        if result.unparsable:
            raise PatchError(f"cannot rewrite this file: LibCST cannot parse it, though Python can "
                             f"({result.unparsable})")
        outcome.applied = list(result.applied)
        outcome.remaining = list(result.remaining)
        if outcome.remaining and not settings.unsafe_fixes:
            # What `--unsafe-fixes` would still do, for the summary (`FixReport.unsafe_only`).
            outcome.remaining = offer(result.source, path, outcome.remaining, settings)
        if result.source != source.text:
            write_if_changed(outcome, make_patch(source, result.source, cwd), apply)

    return _count_found(guarded_outcome(path, work), settings)


def _count_found(outcome: FileOutcome, settings: Settings) -> FileOutcome:
    """Set `outcome.found`: the hazards `check` reports in the file's original text (those that remain when the
    text does not change; one more analysis when it does, since one fix can clear several)."""
    outcome.found = len(outcome.remaining)
    if outcome.error is None and outcome.patch is not None:
        try:
            outcome.found = len(reported_hazards(outcome.patch.source.data, outcome.path, settings))
        except SourceError:  # pragma: no cover - the text was analysed just before
            outcome.found = len(outcome.applied) + len(outcome.remaining)
    return outcome


def reported_hazards(data: bytes, path: str, settings: Settings, at: str | None = None) -> list[Diagnostic]:
    """The errors and warnings `check` reports for a file whose bytes are `data` (a notebook's too); `at`: where
    to analyse it instead of `path` (its copy in a shadow tree), the diagnostics still naming `path`."""
    from dataclasses import replace

    from fixinplace.engine import check_bytes, select_diagnostics

    if at is None:
        return blocking(check_bytes(data, path, settings)[0])
    found, _ = check_bytes(data, at, replace(settings, per_file_ignores=()))
    return blocking(select_diagnostics([replace(d, path=path) for d in found], settings))


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


def run_fix(paths: Sequence[str], settings: Settings | None = None, *, apply: bool = False,
            cwd: str | None = None) -> FixReport:
    """Discover the files under `paths` (as `check` does) and fix each one (unsafe fixes too when
    `settings.unsafe_fixes`); a file reached twice (a symlink and its target) is fixed once."""
    from fixinplace.discovery import discover

    settings = settings or Settings()
    found = discover(paths, settings)
    report = FixReport(errors=list(found.errors), apply=apply, unsafe=settings.unsafe_fixes)
    seen: set[str] = set()
    for path in found.files:
        real = os.path.realpath(path)
        if real in seen:
            continue
        seen.add(real)
        # Every file is fixed against the others as they are (the diff is what --apply writes); the writes come
        # after, then `settle` counts what remains once they are all in place.
        outcome = fix_file(path, settings, apply=False, cwd=cwd)
        report.outcomes.append(outcome)
        if outcome.error is not None:
            report.errors.append(outcome.error)
    if apply:
        write_patches(report)
    settle(report, settings)
    return report


def write_patches(report: FixReport) -> None:
    """Write each outcome's patch; a file that cannot be written keeps its text and gets a one-line error."""
    for o in report.outcomes:
        if o.patch is None or not o.patch.changed or o.written:
            continue
        write_outcome(o, report)


def write_outcome(o: FileOutcome, report: FixReport) -> None:
    """Write one outcome's patch; a file that cannot be written keeps its text and gets a one-line error in
    `report`."""
    try:
        write_patch(o.patch)
        o.written = True
    except PatchError as e:
        o.undo(FileError(o.path, one_line(e)))
        report.errors.append(o.error)


def settle(report: FixReport, settings: Settings) -> None:
    """Make each outcome's `remaining` what `fixinplace check` finds once the fixes are in place (written with
    `report.apply`, else as they would be): a file is analysed again when a project module it imports changes (a
    fix in a helper clears the diagnostics at its calls in the files that import it), or when its own patch was
    dropped or cut down. Without `apply` the changed modules are not on disk: such a file is analysed in a shadow
    tree holding it, the modules it imports (changed ones with their new text) and the `__init__.py` files that
    make their packages."""
    from fixinplace.analysis.project import dependency_files
    from fixinplace.cache import code_text
    from fixinplace.engine import read_source_bytes

    final: dict[str, bytes] = {}  # absolute path -> new bytes, of each file the fixes change
    for o in report.outcomes:
        if o.patch is not None and o.patch.changed and (o.written or not report.apply):
            final[os.path.realpath(o.path)] = o.patch.new_data
    if not final and all(o.exact for o in report.outcomes):
        return
    shadow: _Shadow | None = None
    try:
        for o in report.outcomes:
            if o.error is not None and o.exact:
                continue  # a file that could not be read or fixed: `check` reports the same error
            try:
                own = final.get(os.path.realpath(o.path))
                data = own if own is not None else read_source_bytes(o.path, settings.max_file_size)
                deps = [d for d in dependency_files(o.path, code_text(o.path, data))
                        if os.path.realpath(d) in final]
                if not deps and o.exact:
                    continue
                at = None
                if deps and not report.apply:
                    shadow = shadow or _Shadow(final)
                    at = shadow.place(o.path, data, dependency_files(o.path, code_text(o.path, data)))
                o.remaining = _offered(data, o.path, reported_hazards(data, o.path, settings, at), settings, at)
                o.exact = True
            except (SourceError, OSError):
                continue
    finally:
        if shadow is not None:
            shadow.remove()


def _offered(data: bytes, path: str, hazards: list[Diagnostic], settings: Settings, at: str | None) -> list[Diagnostic]:
    """Remaining hazards with the fix `--unsafe-fixes` would apply (for the summary's list), for a Python file."""
    if not hazards or settings.unsafe_fixes or is_notebook(path):
        return hazards
    from dataclasses import replace

    from fixinplace.engine import decode_source
    from fixinplace.fix.checked import offer

    where = at or path
    offered = offer(decode_source(data), where, [replace(d, path=where) for d in hazards], settings)
    return [replace(d, path=path) for d in offered]


class _Shadow:
    """A temporary copy of the files one analysis reads, at their absolute paths under a temporary folder: the
    analysed file and its imports, with the new text of the files the fixes change."""

    def __init__(self, final: dict[str, bytes]) -> None:
        self.root = tempfile.mkdtemp(prefix="fixinplace-shadow-")
        self.final = final
        self.placed: set[str] = set()

    def path(self, path: str | os.PathLike) -> str:
        absolute = os.path.abspath(path)
        drive, rest = os.path.splitdrive(absolute)
        return os.path.join(self.root, drive.replace(":", ""), rest.lstrip("\\/"))

    def _put(self, path: str | os.PathLike, data: bytes | None) -> None:
        absolute = os.path.abspath(path)
        if absolute in self.placed:
            return
        self.placed.add(absolute)
        if data is None:
            data = self.final.get(os.path.realpath(absolute))
        if data is None:
            with open(absolute, "rb") as f:
                data = f.read()
        target = self.path(absolute)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with open(target, "wb") as f:
            f.write(data)
        # The packages above it (what makes `from .a import b` and the top package resolve as they do).
        folder = os.path.dirname(absolute)
        while os.path.isfile(os.path.join(folder, "__init__.py")):
            marker = os.path.join(folder, "__init__.py")
            if marker not in self.placed:
                self._put(marker, None)
            parent = os.path.dirname(folder)
            if parent == folder:
                break
            folder = parent

    def place(self, path: str, data: bytes, dependencies: Sequence[os.PathLike]) -> str:
        """Put the file (with `data`) and its imports in the tree; return where to analyse it."""
        for dependency in dependencies:
            self._put(dependency, None)
        absolute = os.path.abspath(path)
        self.placed.discard(absolute)
        self._put(absolute, data)
        return self.path(absolute)

    def remove(self) -> None:
        import shutil

        shutil.rmtree(self.root, ignore_errors=True)


__all__ = [
    "FileOutcome",
    "FilePatch",
    "FixReport",
    "PatchError",
    "SourceFile",
    "check_writable",
    "display_path",
    "dominant_newline",
    "encode_text",
    "fix_file",
    "make_patch",
    "normalize_newlines",
    "read_file",
    "run_fix",
    "unified_diff",
    "validate_diff",
    "write_patch",
]
