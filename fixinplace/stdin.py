"""`fixinplace check -` and `fix -`: one text read from standard input, checked or fixed as if it were a file.

`--stdin-filename PATH` names the text: diagnostics show it, the configuration is looked up from its folder, and
a path that the exclusions (`exclude`, `extend-exclude`) match is neither checked nor fixed (as Ruff's
`--force-exclude` does for stdin). Without it the text is shown as `-`. The caller reads standard input once and
passes the bytes here.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Optional

from fixinplace.diagnostics import Diagnostic, FileError, one_line
from fixinplace.engine import Refine, Report, SourceError, check_bytes, decode_source_bytes
from fixinplace.globs import ExcludeGlob
from fixinplace.notebook import NotebookError, decode_notebook, parse_notebook
from fixinplace.reading import is_notebook
from fixinplace.settings import Settings

#: The name a text read from standard input is shown as when no `--stdin-filename` is given.
STDIN = "-"


def is_excluded(path: str, settings: Settings) -> bool:
    """Whether `exclude` / `extend-exclude` match `path` or one of its folders below the project root (the test a
    folder walk would make, applied to a file that is never walked); a path outside the project root is tested
    alone."""
    globs = [ExcludeGlob.parse(g) for g in settings.all_excludes if g.strip()]
    absolute = os.path.normpath(os.path.abspath(path)).replace(os.sep, "/")
    root = os.path.normpath(str(settings.project_root.absolute())).replace(os.sep, "/").rstrip("/") + "/"
    if not absolute.startswith(root):
        name = absolute.rsplit("/", 1)[-1]
        return any(g.matches(absolute, None, name, False) for g in globs)
    parts = absolute[len(root):].split("/")
    for depth in range(1, len(parts) + 1):
        rel = "/".join(parts[:depth])
        if any(g.matches(root + rel, rel, parts[depth - 1], depth < len(parts)) for g in globs):
            return True
    return False


def check_stdin(data: bytes, path: str, settings: Settings, refine: Optional[Refine] = None) -> Report:
    """The report of one text read from standard input, shown as `path`."""
    report = Report(files=[path])
    if path != STDIN and is_excluded(path, settings):
        return report
    try:
        if b"\x00" in data:
            raise SourceError("binary input (contains NUL bytes), not Python source")
        diagnostics, text = check_bytes(data, path, settings, refine)
    except SourceError as e:
        report.errors.append(FileError(path, str(e)))
        return report
    report.diagnostics = diagnostics
    if diagnostics:
        report.sources[path] = text
    return report


@dataclass
class StdinFix:
    """What `fix -` produced: the bytes to print (the input unchanged when it could not be fixed)."""

    output: bytes
    applied: list[Diagnostic] = field(default_factory=list)
    remaining: list[Diagnostic] = field(default_factory=list)
    error: Optional[FileError] = None

    @property
    def exit_code(self) -> int:
        """2 when the text could not be fixed, 1 when an error or warning hazard remains, else 0."""
        if self.error is not None:
            return 2
        return 1 if self.remaining else 0


def fix_stdin(data: bytes, path: str, settings: Settings) -> StdinFix:
    """Every fix `fix --apply` would make to one text read from standard input, shown as `path`."""
    from fixinplace.fix.checked import fix_text  # deferred: the fix stage (LibCST), not loaded by `check -`

    if path != STDIN and is_excluded(path, settings):
        return StdinFix(data)
    try:
        if b"\x00" in data:
            raise SourceError("binary input (contains NUL bytes), not Python source")
        if is_notebook(path):
            return _fix_notebook_stdin(data, path, settings)
        text, codec = decode_source_bytes(data)
        result = fix_text(text, path, settings)
        if result.unparsable:
            raise SourceError(f"cannot rewrite: LibCST cannot parse it, though Python can ({result.unparsable})")
        try:
            output = result.source.encode(codec) if result.source != text else data
        except UnicodeEncodeError as e:
            raise SourceError(f"cannot rewrite: the fixed text has a character ({result.source[e.start]!r}) that "
                              f"{codec} cannot encode") from None
    except SourceError as e:
        return StdinFix(data, error=FileError(path, str(e)))
    except Exception as e:  # a bug in a codemod: the input goes through unchanged
        if os.environ.get("FIXINPLACE_DEBUG"):
            raise
        return StdinFix(data, error=FileError(path, one_line(f"internal error: {type(e).__name__}: {e}")))
    return StdinFix(output, list(result.applied), list(result.remaining))


def _fix_notebook_stdin(data: bytes, path: str, settings: Settings) -> StdinFix:
    """`fix_stdin` of a notebook's JSON: the notebook with its code cells fixed (`fixinplace.fix.notebooks`)."""
    from fixinplace.fix.files import PatchError  # deferred: the fix stage (LibCST), not loaded by `check -`
    from fixinplace.fix.notebooks import fix_cells  # deferred: the fix stage (LibCST), not loaded by `check -`

    try:
        notebook = parse_notebook(decode_notebook(data))
        fixed = fix_cells(notebook, path, settings)
    except NotebookError as e:
        raise SourceError(str(e)) from None
    except PatchError as e:
        raise SourceError(one_line(e)) from None
    new_text = notebook.with_sources(fixed.sources)
    output = data if new_text == notebook.text else new_text.encode("utf-8")
    return StdinFix(output, fixed.applied, fixed.remaining)
