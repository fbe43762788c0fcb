"""Minimal text edits between two versions of a document: only the changed lines, never a whole-document replace."""

from __future__ import annotations

import difflib

from lsprotocol import types

from fixinplace.lines import split_lines
from fixinplace.lsp.positions import UTF16, column_at, units


def _line_start(lines: list[str], index: int, encoding: str = UTF16) -> types.Position:
    """The position where line `index` starts; past the last line: the end of the document."""
    if index < len(lines):
        return types.Position(line=index, character=0)
    if not lines:
        return types.Position(line=0, character=0)
    last = lines[-1]
    if last.endswith(("\n", "\r")):
        return types.Position(line=len(lines), character=0)
    return types.Position(line=len(lines) - 1, character=units(last, encoding))


def minimal_edits(old: str, new: str, encoding: str = UTF16) -> list[types.TextEdit]:
    """TextEdits that turn `old` into `new`, one per changed block of lines (difflib opcodes on lines), their
    positions in code units of `encoding`."""
    a, b = split_lines(old), split_lines(new)
    edits = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag == "equal":
            continue
        edits.append(
            types.TextEdit(range=types.Range(start=_line_start(a, i1, encoding), end=_line_start(a, i2, encoding)),
                           new_text="".join(b[j1:j2]))
        )
    return edits


def _offset(text: str, position: types.Position, encoding: str) -> int:
    lines = split_lines(text)
    if position.line >= len(lines):
        return len(text)
    start = sum(len(line) for line in lines[: position.line])
    return start + column_at(lines[position.line].rstrip("\r\n"), position.character, encoding)


def apply_edits(text: str, edits: list[types.TextEdit], encoding: str = UTF16) -> str:
    """Apply non-overlapping TextEdits (as a client would, their positions in code units of `encoding`): from the
    last to the first."""
    spans = sorted(((_offset(text, e.range.start, encoding), _offset(text, e.range.end, encoding), e.new_text)
                    for e in edits), reverse=True)
    for start, end, new_text in spans:
        text = text[:start] + new_text + text[end:]
    return text
