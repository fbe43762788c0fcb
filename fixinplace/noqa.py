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
from fixinplace.lines import split_lines

_DIRECTIVE = re.compile(r"#\s*fixinplace\s*:\s*ignore\[([^\]]*)\]", re.IGNORECASE)


@dataclass
class NoqaReport:
    """What `--add-noqa` did: how many comments went into which files, and the files it could not change."""

    added: int = 0
    files: list[str] = field(default_factory=list)
    errors: list[FileError] = field(default_factory=list)


def _unsafe_line_ends(text: str) -> set[int]:
    """Lines (1-based) whose end is inside a string token: a comment there would become part of the string."""
    inside: set[int] = set()
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if tok.start[0] != tok.end[0] and tok.type not in (tokenize.NEWLINE, tokenize.NL):
                inside.update(range(tok.start[0], tok.end[0]))
    except (tokenize.TokenError, SyntaxError):
        pass
    return inside


def _place(d: Diagnostic, lines: list[str], unsafe: set[int]) -> Optional[int]:
    """The line (1-based) that gets the diagnostic's comment, or None when no line of its span can hold one."""
    for line in range(d.line, max(d.line, d.end_line) + 1):
        if line > len(lines) or line in unsafe:
            continue
        if lines[line - 1].rstrip("\r\n").rstrip().endswith("\\"):
            continue
        return line
    return None


def _with_codes(line: str, codes: set[str]) -> str:
    """One source line with `codes` added to its `# fixinplace: ignore[...]` comment, or a new comment."""
    body = line.rstrip("\r\n")
    ending = line[len(body):]
    match = None
    for m in _DIRECTIVE.finditer(body):
        match = m
    if match is not None:
        present = {c.strip().upper() for c in re.split(r"[,\s]+", match.group(1)) if c.strip()}
        merged = ", ".join(sorted(present | codes))
        body = f"{body[:match.start(1)]}{merged}{body[match.end(1):]}"
    else:
        body = f"{body.rstrip()}  # fixinplace: ignore[{', '.join(sorted(codes))}]"
    return body + ending


def add_comments(text: str, diagnostics: Iterable[Diagnostic]) -> tuple[str, int, list[Diagnostic]]:
    """`text` with a suppression comment for each diagnostic; also how many codes were added and the diagnostics
    that no line could take a comment for."""
    lines = split_lines(text)
    unsafe = _unsafe_line_ends(text)
    wanted: dict[int, set[str]] = {}
    unplaced: list[Diagnostic] = []
    for d in diagnostics:
        line = _place(d, lines, unsafe)
        if line is None:
            unplaced.append(d)
        else:
            wanted.setdefault(line, set()).add(d.code)
    for line, codes in wanted.items():
        lines[line - 1] = _with_codes(lines[line - 1], codes)
    return "".join(lines), sum(len(c) for c in wanted.values()), unplaced


def add_noqa(diagnostics: Iterable[Diagnostic], max_size: Optional[int] = None) -> NoqaReport:
    """Add a suppression comment for each diagnostic to its file (rewritten atomically)."""
    from fixinplace.engine import SourceError
    from fixinplace.fix.files import PatchError, make_patch, read_file, write_patch

    report = NoqaReport()
    by_file: dict[str, list[Diagnostic]] = {}
    for d in diagnostics:
        by_file.setdefault(d.path, []).append(d)
    for path, found in by_file.items():
        if path.lower().endswith(".ipynb"):
            _add_to_notebook(path, found, max_size, report)
            continue
        try:
            source = read_file(path, max_size)
            new_text, added, unplaced = add_comments(source.text, found)
            for d in unplaced:
                report.errors.append(FileError(path, f"line {d.line}: no line of the {d.code} diagnostic can take a "
                                                     "comment (inside a string or after a `\\`)"))
            if added:
                write_patch(make_patch(source, new_text))
                report.added += added
                report.files.append(path)
        except (SourceError, PatchError, OSError) as e:
            report.errors.append(FileError(path, one_line(e)))
    return report


def _add_to_notebook(path: str, diagnostics: list[Diagnostic], max_size: Optional[int], report: NoqaReport) -> None:
    """`add_noqa` for a notebook: each comment goes into the cell that `Diagnostic.cell` names."""
    from fixinplace.engine import SourceError
    from fixinplace.fix.files import PatchError, write_patch
    from fixinplace.fix.notebooks import notebook_patch, read_notebook

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
                                                     "diagnostic can take a comment (inside a string or after a `\\`)"))
        if added:
            write_patch(notebook_patch(source, notebook, sources))
            report.added += added
            report.files.append(path)
    except (SourceError, PatchError, OSError) as e:
        report.errors.append(FileError(path, one_line(e)))
