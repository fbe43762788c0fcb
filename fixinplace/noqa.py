"""`fixinplace check --add-noqa`: a `# fixinplace: ignore[CODE]` comment for every diagnostic reported, as Ruff's
`--add-noqa` adds `# noqa: CODE`.

The comment goes at the end of the diagnostic's first line whose end is neither inside a string nor after a line
continuation (`\\`), between its `line` and `end_line` (where the suppression is honoured). A line that already has
a `# fixinplace: ignore[...]` comment gets the code added inside its brackets; the codes stay sorted. A second run
finds nothing left to suppress and changes nothing. Files are rewritten through `fixinplace.fix.files`
(same encoding, BOM and line endings, temporary file + rename).
"""

from __future__ import annotations

import io
import re
import tokenize
from dataclasses import dataclass, field
from typing import Iterable, Optional

from fixinplace.diagnostics import Diagnostic, FileError, one_line
from fixinplace.engine import SourceError
from fixinplace.lines import split_lines
from fixinplace.reading import is_notebook

_DIRECTIVE = re.compile(r"#\s*fixinplace\s*:\s*ignore\[([^\]]*)\]", re.IGNORECASE)


@dataclass
class NoqaReport:
    """What `--add-noqa` did: how many comments went into which files, and the files it could not change."""

    added: int = 0
    files: list[str] = field(default_factory=list)
    errors: list[FileError] = field(default_factory=list)


class IgnoreComments:
    """Where a suppression comment can go in one text (read once, with one tokenize pass), and the line each
    diagnostic's comment makes."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.lines = split_lines(text)
        self.comment_at: dict[int, int] = {}  # line -> column of its comment
        self.inside: set[int] = set()  # lines whose end is inside a string (or another multi-line token)
        try:
            for tok in tokenize.generate_tokens(io.StringIO(text).readline):
                if tok.type == tokenize.COMMENT:
                    self.comment_at[tok.start[0]] = tok.start[1]
                elif tok.start[0] != tok.end[0] and tok.type not in (tokenize.NEWLINE, tokenize.NL):
                    self.inside.update(range(tok.start[0], tok.end[0]))
        except (tokenize.TokenError, SyntaxError):
            pass

    def place(self, d: Diagnostic) -> Optional[int]:
        """The 1-based line that takes `d`'s comment; None when no line of its span can (inside a string, blank,
        or after a `\\` continuation)."""
        for line in range(d.line, max(d.line, d.end_line) + 1):
            if line > len(self.lines) or line in self.inside:
                continue
            body = self.lines[line - 1].rstrip("\r\n")
            if not body.strip() or body.rstrip().endswith("\\"):
                continue
            return line
        return None

    def line_for(self, d: Diagnostic) -> Optional[tuple[int, str]]:
        """The line that takes `d`'s comment and that line's new text; None when no line of `d` can."""
        line = self.place(d)
        return None if line is None else (line, self.with_codes(line, {d.code}))

    def with_codes(self, line: int, codes: set[str]) -> str:
        """Line `line` (1-based) with `codes` added to its `# fixinplace: ignore[...]` comment, or a new comment."""
        old = self.lines[line - 1]
        body = old.rstrip("\r\n")
        ending = old[len(body):]
        match = None
        if line in self.comment_at:
            for match in _DIRECTIVE.finditer(body, self.comment_at[line]):
                pass  # the last one
        if match is not None:
            present = {c.strip().upper() for c in re.split(r"[,\s]+", match.group(1)) if c.strip()}
            return f"{body[:match.start(1)]}{', '.join(sorted(present | codes))}{body[match.end(1):]}{ending}"
        return f"{body.rstrip()}  # fixinplace: ignore[{', '.join(sorted(codes))}]{ending}"


def add_comments(text: str, diagnostics: Iterable[Diagnostic]) -> tuple[str, int, list[Diagnostic]]:
    """`text` with a suppression comment for each diagnostic; also how many codes were added and the diagnostics
    that no line could take a comment for."""
    comments = IgnoreComments(text)
    wanted: dict[int, set[str]] = {}
    unplaced: list[Diagnostic] = []
    for d in diagnostics:
        line = comments.place(d)
        if line is None:
            unplaced.append(d)
        else:
            wanted.setdefault(line, set()).add(d.code)
    lines = list(comments.lines)
    for line, codes in wanted.items():
        lines[line - 1] = comments.with_codes(line, codes)
    return "".join(lines), sum(len(c) for c in wanted.values()), unplaced


def add_noqa(diagnostics: Iterable[Diagnostic], max_size: Optional[int] = None) -> NoqaReport:
    """Add a suppression comment for each diagnostic to its file (rewritten atomically)."""
    from fixinplace.fix.files import (  # deferred: the fix stage (LibCST), which the LSP does not load at start
        PatchError, make_patch, read_file, write_patch)

    report = NoqaReport()
    by_file: dict[str, list[Diagnostic]] = {}
    for d in diagnostics:
        by_file.setdefault(d.path, []).append(d)
    for path, found in by_file.items():
        if is_notebook(path):
            _add_to_notebook(path, found, max_size, report)
            continue
        try:
            source = read_file(path, max_size)
            new_text, added, unplaced = add_comments(source.text, found)
            for d in unplaced:
                report.errors.append(FileError(path, f"line {d.line}: no line of the {d.code} diagnostic can take a "
                                                     "comment (inside a string, blank, or after a `\\`)"))
            if added:
                write_patch(make_patch(source, new_text))
                report.added += added
                report.files.append(path)
        except (SourceError, PatchError, OSError) as e:
            report.errors.append(FileError(path, one_line(e)))
    return report


def _add_to_notebook(path: str, diagnostics: list[Diagnostic], max_size: Optional[int], report: NoqaReport) -> None:
    """`add_noqa` for a notebook: each comment goes into the cell that `Diagnostic.cell` names."""
    from fixinplace.fix.files import PatchError, write_patch  # deferred: the fix stage (LibCST), not at LSP start
    from fixinplace.fix.notebooks import notebook_patch, read_notebook  # deferred: the fix stage, not at LSP start

    try:
        source, notebook = read_notebook(path, max_size)
        sources = notebook.code_sources()
        added = 0
        for index, cell_text in enumerate(sources):
            number = notebook.cell_number(index)
            found = [d for d in diagnostics if d.cell == number]
            if not found:
                continue
            sources[index], count, unplaced = add_comments(cell_text, found)
            added += count
            for d in unplaced:
                report.errors.append(FileError(path, f"cell {number}, line {d.line}: no line of the {d.code} "
                                                     "diagnostic can take a comment (inside a string, blank, or after a `\\`)"))
        if added:
            write_patch(notebook_patch(source, notebook, sources))
            report.added += added
            report.files.append(path)
    except (SourceError, PatchError, OSError) as e:
        report.errors.append(FileError(path, one_line(e)))
