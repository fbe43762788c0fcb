"""Minimal text edits between two versions of a document: only the changed lines, never a whole-document replace."""

from __future__ import annotations

import difflib

from lsprotocol import types

from fixinplace.lines import split_lines
from fixinplace.lsp.convert import utf16_len


def _line_start(lines: list[str], index: int) -> types.Position:
    """The position where line `index` starts; past the last line: the end of the document."""
    if index < len(lines):
        return types.Position(line=index, character=0)
    if not lines:
        return types.Position(line=0, character=0)
    last = lines[-1]
    if last.endswith(("\n", "\r")):
        return types.Position(line=len(lines), character=0)
    return types.Position(line=len(lines) - 1, character=utf16_len(last))


def minimal_edits(old: str, new: str) -> list[types.TextEdit]:
    """TextEdits that turn `old` into `new`, one per changed block of lines (difflib opcodes on lines)."""
    a, b = split_lines(old), split_lines(new)
    edits = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag == "equal":
            continue
        edits.append(
            types.TextEdit(range=types.Range(start=_line_start(a, i1), end=_line_start(a, i2)), new_text="".join(b[j1:j2]))
        )
    return edits


def _offset(text: str, position: types.Position) -> int:
    lines = split_lines(text)
    if position.line >= len(lines):
        return len(text)
    start = sum(len(line) for line in lines[: position.line])
    line, units, column = lines[position.line], 0, 0
    while column < len(line) and units < position.character:
        units += 2 if ord(line[column]) > 0xFFFF else 1
        column += 1
    return start + column


def apply_edits(text: str, edits: list[types.TextEdit]) -> str:
    """Apply non-overlapping TextEdits (as a client would): from the last to the first."""
    spans = sorted(((_offset(text, e.range.start), _offset(text, e.range.end), e.new_text) for e in edits), reverse=True)
    for start, end, new_text in spans:
        text = text[:start] + new_text + text[end:]
    return text
