"""fixinplace diagnostics -> lsprotocol types.

Our lines and columns are 1-based and columns count characters (code points); LSP positions are 0-based and, by
default, count UTF-16 code units. The conversion is done per line, on the text the diagnostic was computed from.
"""

from __future__ import annotations

from typing import Sequence

from lsprotocol import types

from fixinplace.diagnostics import Diagnostic, Severity
from fixinplace.lines import line_texts

SOURCE = "fixinplace"

_SEVERITY = {
    Severity.ERROR: types.DiagnosticSeverity.Error,
    Severity.WARNING: types.DiagnosticSeverity.Warning,
    Severity.INFO: types.DiagnosticSeverity.Information,
}


def text_lines(text: str) -> list[str]:
    """The document's lines without their line endings (as LSP numbers them)."""
    return line_texts(text) or [""]


def utf16_len(text: str) -> int:
    """How many UTF-16 code units `text` takes."""
    return len(text.encode("utf-16-le")) // 2


def to_position(lines: Sequence[str], line: int, column: int) -> types.Position:
    """An LSP position from a 1-based line and a 1-based character column (clamped to the document)."""
    index = max(0, line - 1)
    if index >= len(lines):
        return types.Position(line=max(0, len(lines) - 1), character=utf16_len(lines[-1]) if lines else 0)
    text = lines[index]
    return types.Position(line=index, character=utf16_len(text[: max(0, column - 1)]))


def to_character(lines: Sequence[str], position: types.Position) -> tuple[int, int]:
    """A 1-based (line, character column) from an LSP position (UTF-16 units)."""
    if position.line >= len(lines):
        return position.line + 1, 1
    text, units, column = lines[position.line], 0, 0
    while column < len(text) and units < position.character:
        units += 2 if ord(text[column]) > 0xFFFF else 1
        column += 1
    return position.line + 1, column + 1


def to_range(lines: Sequence[str], d: Diagnostic) -> types.Range:
    """The LSP range of a diagnostic (our end column is exclusive, like LSP's)."""
    return types.Range(start=to_position(lines, d.line, d.column), end=to_position(lines, d.end_line, d.end_column))


def to_lsp(d: Diagnostic, lines: Sequence[str], uri: str) -> types.Diagnostic:
    """One fixinplace diagnostic as an LSP diagnostic (code, severity, source, message, related information)."""
    related = [
        types.DiagnosticRelatedInformation(
            location=types.Location(
                uri=uri,
                range=types.Range(
                    start=to_position(lines, r.line, r.column),
                    end=to_position(lines, r.line, len(lines[r.line - 1]) + 1 if 0 < r.line <= len(lines) else 1),
                ),
            ),
            message=r.message,
        )
        for r in d.related
    ]
    return types.Diagnostic(
        range=to_range(lines, d),
        message=d.message,
        severity=_SEVERITY[d.severity],
        code=d.code,
        source=SOURCE,
        related_information=related or None,
        data={"code": d.code, "line": d.line, "column": d.column},
    )


def fix_title(d: Diagnostic) -> str:
    """The title of a diagnostic's quick fix."""
    assert d.fix is not None
    return ("Unsafe fix: " if d.fix.applicability == "unsafe" else "") + d.fix.description


def hover_text(d: Diagnostic) -> str:
    """Markdown shown when hovering a flagged write."""
    parts = [f"**{d.code}** ({d.severity.value}): {d.message}"]
    for r in d.related:
        parts.append(f"Line {r.line}: {r.message}")
    if d.fix is not None:
        parts.append(("Unsafe fix" if d.fix.applicability == "unsafe" else "Fix") + f": {d.fix.description}")
    return "\n\n".join(parts)
