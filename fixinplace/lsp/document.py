"""pygls documents whose lines break where LSP's and Python's do.

pygls numbers a document's lines with `str.splitlines`, which also breaks at form feeds, `\\x1c`-`\\x1e`, `\\x85`,
U+2028 and U+2029: an incremental edit after one of them lands on the wrong line and the server's text drifts from
the editor's. These classes number lines with `fixinplace.lines.split_lines` instead.
"""

from __future__ import annotations

from typing import Sequence

from lsprotocol import types
from pygls.workspace import TextDocument, Workspace

from fixinplace.lines import split_lines


class SourceDocument(TextDocument):
    """A text document whose lines end only at `\\n`, `\\r\\n` or `\\r`, and whose edits read a position past
    a line's end as the line's end (as LSP says), never past its line break."""

    @property
    def lines(self) -> Sequence[str]:
        return tuple(split_lines(self.source))

    def apply_change(self, change: types.TextDocumentContentChangeEvent) -> None:
        if isinstance(change, types.TextDocumentContentChangePartial):
            lines = self.lines
            change = types.TextDocumentContentChangePartial(
                range=types.Range(start=self._within_line(lines, change.range.start),
                                  end=self._within_line(lines, change.range.end)),
                text=change.text, range_length=change.range_length)
        super().apply_change(change)

    def _within_line(self, lines: Sequence[str], position: types.Position) -> types.Position:
        """`position` with its character clamped to its line's length without the line break (pygls clamps one
        unit too far: `character` equal to the length with the break takes the break)."""
        if position.line >= len(lines):
            return position
        length = self.position_codec.client_num_units(lines[position.line].rstrip("\r\n"))
        return position if position.character <= length else types.Position(line=position.line, character=length)


class SourceWorkspace(Workspace):
    """A workspace that holds `SourceDocument`s."""

    def _create_text_document(self, doc_uri: str, source: str | None = None, version: int | None = None,
                              language_id: str | None = None) -> TextDocument:
        return SourceDocument(doc_uri, source=source, version=version, language_id=language_id,
                              sync_kind=self._sync_kind, position_codec=self._position_codec)


def use_source_lines(workspace: Workspace) -> None:
    """Make `workspace` (created by pygls at `initialize`, before any document opens) create `SourceDocument`s."""
    if type(workspace) is Workspace:
        workspace.__class__ = SourceWorkspace  # adds behaviour only, no state: the instance stays valid
