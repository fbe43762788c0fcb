"""pygls documents whose lines break where LSP's and Python's do.

pygls numbers a document's lines with `str.splitlines`, which also breaks at form feeds, `\\x1c`-`\\x1e`, `\\x85`,
U+2028 and U+2029: an incremental edit after one of them lands on the wrong line and the server's text drifts from
the editor's. These classes number lines with `fixinplace.lines.split_lines` instead.
"""

from __future__ import annotations

from typing import Sequence

from pygls.workspace import TextDocument, Workspace

from fixinplace.lines import split_lines


class SourceDocument(TextDocument):
    """A text document whose lines end only at `\\n`, `\\r\\n` or `\\r`."""

    @property
    def lines(self) -> Sequence[str]:
        return tuple(split_lines(self.source))


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
