"""fixinplace diagnostics -> lsprotocol types.

Our lines and columns are 1-based and columns count characters (code points); LSP positions are 0-based and count
code units of the encoding negotiated at `initialize` (UTF-16 unless the client offers another: UTF-8 or UTF-32).
The conversion is done per line, on the text the diagnostic was computed from.
"""

from __future__ import annotations

from typing import Sequence

from lsprotocol import types

from fixinplace.diagnostics import Applicability, Diagnostic, Related, Severity
from fixinplace.lines import line_texts
from fixinplace.lsp.edits import minimal_edits
from fixinplace.lsp.positions import UTF8, UTF16, UTF32, column_at, units, utf16_len  # noqa: F401 (re-exported)
from fixinplace.rules import RULES_BY_CODE

SOURCE = "fixinplace"

_SEVERITY = {
    Severity.ERROR: types.DiagnosticSeverity.Error,
    Severity.WARNING: types.DiagnosticSeverity.Warning,
    Severity.INFO: types.DiagnosticSeverity.Information,
}


def text_lines(text: str) -> list[str]:
    """The document's lines without their line endings (as LSP numbers them)."""
    return line_texts(text) or [""]


def to_position(lines: Sequence[str], line: int, column: int, encoding: str = UTF16) -> types.Position:
    """An LSP position from a 1-based line and a 1-based character column (clamped to the document)."""
    index = max(0, line - 1)
    if index >= len(lines):
        return types.Position(line=max(0, len(lines) - 1), character=units(lines[-1], encoding) if lines else 0)
    text = lines[index]
    return types.Position(line=index, character=units(text[: max(0, column - 1)], encoding))


def to_character(lines: Sequence[str], position: types.Position, encoding: str = UTF16) -> tuple[int, int]:
    """A 1-based (line, character column) from an LSP position (code units of `encoding`)."""
    if position.line >= len(lines):
        return position.line + 1, 1
    return position.line + 1, column_at(lines[position.line], position.character, encoding) + 1


def to_range(lines: Sequence[str], d: Diagnostic) -> types.Range:
    """The LSP range of a diagnostic (our end column is exclusive, like LSP's)."""
    return types.Range(start=to_position(lines, d.line, d.column), end=to_position(lines, d.end_line, d.end_column))


class Layout:
    """Where the lines of an analysed text stand in the editor: one text document at `uri` (this class), or the
    cells of a notebook (`fixinplace.lsp.notebooks.CellLayout`, which maps lines to cells and back)."""

    def __init__(self, uri: str, lines: Sequence[str], encoding: str = UTF16) -> None:
        self.uri = uri
        self.lines = list(lines) or [""]  # the analysed text's lines (what columns are measured on)
        self.encoding = encoding  # what the positions sent and read count (negotiated at `initialize`)

    def admits(self, new_text: str) -> bool:
        """Whether a rewrite of the analysed text can be sent as edits (a notebook's must stay in its cells)."""
        return True

    def place(self, index: int) -> tuple[str, int]:
        """The document and its 0-based line that hold the analysed text's 0-based line `index`."""
        return self.uri, index

    def line_of(self, uri: str, index: int) -> int | None:
        """The analysed text's 0-based line shown at line `index` of document `uri`; None when not shown there."""
        return index if uri == self.uri else None

    def uris(self) -> list[str]:
        """The documents this text is shown in (each gets its diagnostics published)."""
        return [self.uri]

    def message(self, text: str) -> str:
        """A diagnostic's message with the lines it names as the editor numbers them."""
        return text

    def line_name(self, line: int) -> str:
        """How a message names a 1-based line of the analysed text."""
        return f"Line {line}"

    def position(self, line: int, column: int) -> tuple[str, types.Position]:
        """The document and LSP position of a 1-based line and character column of the analysed text."""
        at = to_position(self.lines, line, column, self.encoding)
        uri, index = self.place(at.line)
        return uri, types.Position(line=index, character=at.character)

    def location(self, line: int, column: int, end_line: int, end_column: int) -> types.Location:
        """The LSP location of a span of the analysed text (an end in another document ends its start's line)."""
        uri, start = self.position(line, column)
        end_uri, end = self.position(end_line, end_column)
        if end_uri != uri or (end.line, end.character) < (start.line, start.character):
            # (the start's line is the analysed line `line`, clamped as `to_position` clamps it)
            end = types.Position(line=start.line,
                                 character=units(self.lines[min(max(line, 1), len(self.lines)) - 1], self.encoding))
        return types.Location(uri=uri, range=types.Range(start=start, end=end))

    def analysed(self, uri: str, position: types.Position) -> tuple[int, int] | None:
        """The 1-based (line, character column) of the analysed text at an LSP position of document `uri`."""
        index = self.line_of(uri, position.line)
        if index is None:
            return None
        return to_character(self.lines, types.Position(line=index, character=position.character), self.encoding)

    def line_edit(self, line: int, new_line: str) -> dict[str, list[types.TextEdit]]:
        """The edit that gives the analysed text's 1-based `line` the text `new_line` (its line ending kept)."""
        uri, index = self.place(line - 1)
        old = self.lines[line - 1]
        end = types.Position(line=index, character=units(old.rstrip("\r\n"), self.encoding))
        return {uri: [types.TextEdit(range=types.Range(start=types.Position(line=index, character=0), end=end),
                                     new_text=new_line.rstrip("\r\n"))]}

    def edit(self, old: str, new: str) -> dict[str, list[types.TextEdit]] | None:
        """The text edits, per document, that make the analysed text `old` into `new` (None when the change cannot
        be made in the documents)."""
        return {self.uri: minimal_edits(old, new, self.encoding)}


def to_lsp(d: Diagnostic, lines: Sequence[str] | Layout, uri: str = "") -> types.Diagnostic:
    """One fixinplace diagnostic as an LSP diagnostic (code, severity, source, message, related information), in
    the document `uri` whose lines are `lines`, or where `lines` (a `Layout`) places it."""
    layout = lines if isinstance(lines, Layout) else Layout(uri, lines)
    return types.Diagnostic(
        range=layout.location(d.line, d.column, d.end_line, d.end_column).range,
        message=layout.message(d.message),
        severity=_SEVERITY[d.severity],
        code=d.code,
        source=SOURCE,
        related_information=related_information(d, layout) or None,
        data={"code": d.code, "line": d.line, "column": d.column},
    )


def related_places(d: Diagnostic) -> list[Related]:
    """The places a diagnostic points at besides the write: the op that saved the tensor (each one, when the write
    invalidated several), the backward that needs it, and for a leaf write the leaf's creation (`Diagnostic.related`)."""
    out = list(d.related)
    seen = {(r.line, r.column) for r in out}

    def add(line: int, column: int, message: str) -> None:
        if line > 0 and (line, column) not in seen and (line, column) != (d.line, d.column):
            seen.add((line, column))
            out.append(Related(line, column, message))

    if d.message.startswith("this call runs "):
        return out  # the write is in another file: the lines in its message are that file's
    for save in d.facts.saves if d.facts is not None else ():
        if not any(r.line == save.span.line for r in d.related):
            add(save.span.line, save.span.column, f"`{save.label}` saved for backward by `{save.op}` here")
    for save in d.facts.saves if d.facts is not None else ():
        if save.backward is not None:
            add(save.backward.line, save.backward.column, f"the backward that needs `{save.label}` runs here")
        elif save.backward_line:
            add(save.backward_line, 1, f"the backward that needs `{save.label}` runs here")
    return out


def related_information(d: Diagnostic, layout: Layout) -> list[types.DiagnosticRelatedInformation]:
    """`related_places` as LSP related information (each spans its line from its column, possibly in another cell)."""
    out = []
    for r in related_places(d):
        index = min(max(r.line, 1), len(layout.lines))
        end_column = len(layout.lines[index - 1]) + 1
        column = _first_code_column(layout.lines[index - 1]) if r.column <= 1 else r.column
        out.append(types.DiagnosticRelatedInformation(location=layout.location(r.line, column, r.line, end_column),
                                                      message=r.message))
    return out


def _first_code_column(line: str) -> int:
    return len(line) - len(line.lstrip()) + 1


def fix_title(d: Diagnostic) -> str:
    """The title of a diagnostic's quick fix: its description, with "(unsafe)" after an unsafe one (as Ruff's
    editor integration titles them)."""
    assert d.fix is not None
    return d.fix.description + (" (unsafe)" if d.fix.applicability != Applicability.SAFE else "")


def hover_text(d: Diagnostic, layout: Layout | None = None, pending: bool = False) -> str:
    """Markdown shown when hovering a flagged write: the rule, the message, where the tensor was saved, the fix
    (lines named as `layout` numbers them; `pending`: its fix is still being checked)."""
    layout = layout or Layout("", [])
    rule = RULES_BY_CODE.get(d.code)
    name = f" `{rule.name}`" if rule is not None else ""
    parts = [f"**{d.code}**{name} ({d.severity.value}): {layout.message(d.message)}"]
    for r in related_places(d):
        parts.append(f"{layout.line_name(r.line)}: {r.message}")
    if pending:
        parts.append("Fix: being checked (the quick fixes offer it once it passes)")
    elif d.fix is not None:
        parts.append(("Unsafe fix" if d.fix.applicability != Applicability.SAFE else "Fix") + f": {d.fix.description}")
    elif d.severity is not Severity.INFO:
        parts.append("No automatic fix. Suppress it with `# fixinplace: ignore[" + d.code + "]` when it is intended.")
    if rule is not None:
        parts.append(f"_{rule.summary}_ (docs/rules.md, {d.code})")
    return "\n\n".join(parts)
